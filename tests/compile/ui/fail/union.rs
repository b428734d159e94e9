use tooldef::Portable;

#[derive(Portable)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {}
