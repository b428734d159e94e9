//! A small seeded random number generator (SplitMix64): every instance is a function of its
//! seed, so a failure can be replayed from the seed it prints.

/// A SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator that starts from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// A seed mixed from a base seed and some words (a tool's name, a target, an index), so
    /// that every instance has its own stream and can be regenerated alone.
    pub fn seed_for(base: u64, words: &[&str], index: u64) -> u64 {
        let mut rng = Rng::new(base ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut seed = rng.next_u64();
        for word in words {
            for byte in word.bytes() {
                seed = (seed ^ u64::from(byte)).wrapping_mul(0x0100_0000_01B3);
            }
            seed = Rng::new(seed).next_u64();
        }
        seed
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        assert!(n > 0, "below(0)");
        // Multiply-shift: unbiased enough for tests, and never loops.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// A `usize` in `lo..=hi`.
    pub fn between(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi, "between({lo}, {hi})");
        lo + self.below((hi - lo) as u64 + 1) as usize
    }

    /// An integer in `lo..=hi`.
    pub fn int_between(&mut self, lo: i128, hi: i128) -> i128 {
        assert!(lo <= hi, "int_between({lo}, {hi})");
        let span = (hi - lo) as u128;
        if span >= u128::from(u64::MAX) {
            let wide = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
            return lo + (wide % (span + 1)) as i128;
        }
        lo + i128::from(self.below(span as u64 + 1))
    }

    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// One of `items`, uniformly.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// An index chosen by `weights`.
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut roll = self.below(total.max(1));
        for (i, &w) in weights.iter().enumerate() {
            if roll < u64::from(w) {
                return i;
            }
            roll -= u64::from(w);
        }
        weights.len() - 1
    }

    /// `items` in a random order.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn the_same_seed_gives_the_same_stream() {
        let a: Vec<u64> = (0..5)
            .map({
                let mut r = Rng::new(7);
                move |_| r.next_u64()
            })
            .collect();
        let mut r = Rng::new(7);
        assert_eq!(a, (0..5).map(|_| r.next_u64()).collect::<Vec<_>>());
        assert_ne!(Rng::seed_for(1, &["a"], 0), Rng::seed_for(1, &["b"], 0));
    }

    #[test]
    fn bounds_hold() {
        let mut r = Rng::new(1);
        for _ in 0..1000 {
            let n = r.int_between(i128::from(i64::MIN), i128::from(u64::MAX));
            assert!(n >= i128::from(i64::MIN) && n <= i128::from(u64::MAX));
            assert!(r.between(3, 5) >= 3);
        }
    }
}
