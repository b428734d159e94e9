//! String formats: valid values generated for every format tooldef's schemas use (with
//! offsets, fractional seconds, upper case where the format allows it), invalid ones for
//! mutations, the checks the `jsonschema` crate lacks (`partial-time`, `partial-date-time`,
//! `ip`) or that the oracle reads apart from the library (host names and mailboxes, through the
//! `idna` and `email_address` crates), and the parsing that decides when two spellings mean the same value.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::rng::Rng;

/// The formats [`generate`] knows; any other is refused loudly.
pub const KNOWN: &[&str] = &[
    "date",
    "date-time",
    "time",
    "partial-time",
    "partial-date-time",
    "duration",
    "uuid",
    "uri",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "ip",
];

/// A valid value of `format`, or `None` for a format this generator does not know.
pub fn generate(format: &str, rng: &mut Rng) -> Option<String> {
    Some(match format {
        "date" => date(rng),
        "date-time" => {
            let t = if rng.chance(0.05) { 't' } else { 'T' };
            format!("{}{t}{}{}", date(rng), partial_time(rng), offset(rng))
        }
        "time" => format!("{}{}", partial_time(rng), offset(rng)),
        "partial-time" => partial_time(rng),
        "partial-date-time" => format!("{}T{}", date(rng), partial_time(rng)),
        "duration" => duration(rng),
        "uuid" => uuid(rng),
        "uri" => uri(rng),
        "email" => email(rng),
        "idn-email" => idn_email(rng),
        "hostname" => hostname(rng, 4),
        "idn-hostname" => idn_hostname(rng, 3),
        "ipv4" => ipv4(rng),
        "ipv6" => ipv6(rng),
        "ip" => {
            if rng.chance(0.5) {
                ipv4(rng)
            } else {
                ipv6(rng)
            }
        }
        _ => return None,
    })
}

/// A string that is not a valid `format` (though it may look close to one).
pub fn invalid(format: &str, rng: &mut Rng) -> String {
    let options: &[&str] = match format {
        "date" => &[
            "2023-02-29",
            "2024-13-01",
            "2024-1-5",
            "2024/01/05",
            "yesterday",
        ],
        "date-time" => &[
            "2024-01-05T10:00:00",
            "2024-01-05",
            "2024-01-05T25:00:00Z",
            "2024-02-30T10:00:00Z",
            "10:00",
        ],
        "time" => &["10:00", "25:00:00Z", "10:61:00Z", "noon"],
        "partial-time" => &["24:00:00", "10:60:00", "10-00-00", "10:00:00Z", "noon"],
        "partial-date-time" => &["2024-01-05", "2024-02-30T10:00:00", "2024-01-05T10:00:00Z"],
        "duration" => &["3 days", "P", "PT", "1D"],
        "uuid" => &[
            "not-a-uuid",
            "0000000g-0000-0000-0000-000000000000",
            "1234",
            "123e4567-e89b-12d3-a456-42661417400",
        ],
        "uri" => &["not a uri", "//no-scheme/path", "http://exa mple.com/", ":"],
        "email" => &[
            "no-at-sign",
            "a@",
            "@example.com",
            "a b@example.com",
            "josé@example.com",
            "a@bücher.example",
            "a@XN--.example",
        ],
        "idn-email" => &[
            "josé",
            "jo sé@example.com",
            "josé@",
            "@bücher.example",
            "a@-b.example",
        ],
        "hostname" => &[
            "-bad-.example",
            "exa mple.com",
            "a..b",
            "under_score.com",
            "ab--cd.example",
            "XN--.example",
            "bücher.example",
        ],
        "idn-hostname" => &[
            "-bücher.example",
            "bü cher.example",
            "a..b",
            "bü_cher.example",
        ],
        "ipv4" => &["256.1.1.1", "1.2.3", "01.2.3.4", "a.b.c.d"],
        "ipv6" => &["1:2:3", "::g", "1::2::3", "12345::"],
        "ip" => &["256.1.1.1", "1:2:3", "localhost"],
        _ => &["\u{0}"],
    };
    (*rng.pick(options)).to_owned()
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// An RFC 3339 `full-date`: mostly 1970–2100, sometimes any year 0000–9999 or an edge day.
pub fn date(rng: &mut Rng) -> String {
    match rng.weighted(&[6, 2, 1]) {
        0 | 1 => {
            let year = if rng.chance(0.75) {
                rng.int_between(1970, 2100) as i64
            } else {
                rng.int_between(0, 9999) as i64
            };
            let month = rng.int_between(1, 12) as u32;
            let day = rng.int_between(1, i128::from(days_in_month(year, month))) as u32;
            format!("{year:04}-{month:02}-{day:02}")
        }
        _ => (*rng.pick(&[
            "0000-01-01",
            "9999-12-31",
            "2024-02-29",
            "2000-02-29",
            "1970-01-01",
            "1969-12-31",
        ]))
        .to_owned(),
    }
}

/// An RFC 3339 `partial-time`, with 0 to 9 digits of fractional seconds (no leap seconds).
pub fn partial_time(rng: &mut Rng) -> String {
    let (h, m, s) = if rng.chance(0.1) {
        *rng.pick(&[(0, 0, 0), (23, 59, 59), (12, 0, 0)])
    } else {
        (
            rng.int_between(0, 23),
            rng.int_between(0, 59),
            rng.int_between(0, 59),
        )
    };
    let mut out = format!("{h:02}:{m:02}:{s:02}");
    if rng.chance(0.5) {
        let digits = rng.between(1, 9);
        out.push('.');
        for _ in 0..digits {
            out.push(char::from(b'0' + rng.below(10) as u8));
        }
    }
    out
}

/// An RFC 3339 `time-offset`: `Z`, `z`, `+00:00`, `-00:00` or any `±HH:MM`.
fn offset(rng: &mut Rng) -> String {
    match rng.weighted(&[8, 1, 1, 1, 9]) {
        0 => "Z".to_owned(),
        1 => "z".to_owned(),
        2 => "+00:00".to_owned(),
        3 => "-00:00".to_owned(),
        _ => format!(
            "{}{:02}:{:02}",
            if rng.chance(0.5) { '+' } else { '-' },
            rng.int_between(0, 23),
            rng.int_between(0, 59)
        ),
    }
}

/// An RFC 3339 (Appendix A) duration: weeks alone, or a run of consecutive date units (a year
/// may be followed by months, months by days; never a year then days) and of consecutive time
/// units, as its grammar has them (ISO 8601 allows gaps; RFC 3339, which JSON Schema names,
/// does not).
fn duration(rng: &mut Rng) -> String {
    if rng.chance(0.2) {
        return format!("P{}W", rng.int_between(0, 52));
    }
    let run = |rng: &mut Rng, units: [char; 3]| -> String {
        let first = rng.between(0, 2);
        let last = rng.between(first, 2);
        units[first..=last]
            .iter()
            .map(|unit| format!("{}{unit}", rng.int_between(0, 99)))
            .collect()
    };
    let date = rng.chance(0.6);
    let time = !date || rng.chance(0.5);
    let mut out = "P".to_owned();
    if date {
        out.push_str(&run(rng, ['Y', 'M', 'D']));
    }
    if time {
        out.push('T');
        out.push_str(&run(rng, ['H', 'M', 'S']));
    }
    out
}

fn hex(rng: &mut Rng, digits: usize, upper: bool) -> String {
    (0..digits)
        .map(|_| {
            let c = char::from_digit(rng.below(16) as u32, 16).unwrap_or('0');
            if upper { c.to_ascii_uppercase() } else { c }
        })
        .collect()
}

fn uuid(rng: &mut Rng) -> String {
    match rng.weighted(&[1, 1, 18]) {
        0 => "00000000-0000-0000-0000-000000000000".to_owned(),
        1 => "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF".to_owned(),
        _ => {
            let upper = rng.chance(0.2);
            format!(
                "{}-{}-{}-{}-{}",
                hex(rng, 8, upper),
                hex(rng, 4, upper),
                hex(rng, 4, upper),
                hex(rng, 4, upper),
                hex(rng, 12, upper)
            )
        }
    }
}

const UNRESERVED: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~";

fn uri_chars(rng: &mut Rng, max: usize) -> String {
    let mut out = String::new();
    for _ in 0..rng.between(1, max) {
        if rng.chance(0.08) {
            out.push_str(&format!("%{}", hex(rng, 2, true)));
        } else {
            out.push(char::from(*rng.pick(UNRESERVED)));
        }
    }
    out
}

/// An absolute URI (RFC 3986) that the WHATWG URL parser also reads: a hierarchical URL of a
/// common scheme with host, port, path, query and fragment, or a `mailto:`/`urn:` URI.
fn uri(rng: &mut Rng) -> String {
    match rng.weighted(&[14, 1, 1, 1]) {
        0 => {
            let scheme = *rng.pick(&["http", "https", "ftp", "ws", "HTTPS", "x-app"]);
            let host = match rng.weighted(&[6, 1, 1]) {
                0 => hostname(rng, 3),
                1 => ipv4(rng),
                _ => format!("[{}]", ipv6(rng)),
            };
            let mut out = format!("{scheme}://{host}");
            if rng.chance(0.2) {
                out.push_str(&format!(":{}", rng.int_between(1, 65535)));
            }
            for _ in 0..rng.between(0, 3) {
                out.push('/');
                out.push_str(&uri_chars(rng, 8));
            }
            if rng.chance(0.3) {
                out.push_str(&format!("?{}={}", uri_chars(rng, 5), uri_chars(rng, 5)));
            }
            if rng.chance(0.2) {
                out.push_str(&format!("#{}", uri_chars(rng, 6)));
            }
            out
        }
        // A mailbox's local part may hold what a URI must percent-encode (`{`, `%`, `?`).
        1 => format!("mailto:{}@{}", uri_chars(rng, 8), hostname(rng, 3)),
        2 => format!("urn:isbn:{}", rng.int_between(1_000_000_000, 9_999_999_999)),
        _ => format!("file:///{}/{}", uri_chars(rng, 6), uri_chars(rng, 6)),
    }
}

fn email(rng: &mut Rng) -> String {
    let mut domain = hostname(rng, 3);
    if !domain.contains('.') {
        domain.push_str(".example");
    }
    format!("{}@{domain}", local_part(rng))
}

/// An RFC 5321 `dot-string` local part.
fn local_part(rng: &mut Rng) -> String {
    const ATOM: &[u8] =
        b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+/=?^_`{|}~-";
    let mut local = String::new();
    for i in 0..rng.between(1, 3) {
        if i > 0 {
            local.push('.');
        }
        for _ in 0..rng.between(1, 8) {
            local.push(char::from(*rng.pick(ATOM)));
        }
    }
    local
}

/// An RFC 6531 mailbox: a local part with non-ASCII letters now and then, at an
/// internationalised domain.
fn idn_email(rng: &mut Rng) -> String {
    let local = if rng.chance(0.5) {
        (*rng.pick(UNICODE_LOCAL_PARTS)).to_owned()
    } else {
        local_part(rng)
    };
    let mut domain = idn_hostname(rng, 3);
    if !domain.contains(['.', '\u{3002}']) {
        domain.push_str(".example");
    }
    format!("{local}@{domain}")
}

/// Local parts of internationalised mailboxes (RFC 6531's examples' kind).
const UNICODE_LOCAL_PARTS: &[&str] = &["josé", "用户", "Pelé", "θσερ", "почта", "ñandú.rojo"];

/// Valid A-labels (RFC 5890): real internationalised top-level and second-level domains, in
/// their lower-case form; [`hostname`] writes them in any case, as DNS reads them.
const A_LABELS: &[&str] = &[
    "xn--55qw42g",
    "xn--p1ai",
    "xn--bcher-kva",
    "xn--fiqs8s",
    "xn--80asehdb",
    "xn--zckzah",
    "xn--e1afmkfd",
    "xn--mnchen-3ya",
];

/// U-labels (RFC 5890) of several scripts, some with upper-case letters (UTS #46 maps them).
const U_LABELS: &[&str] = &[
    "bücher",
    "BÜCHER",
    "münchen",
    "例え",
    "テスト",
    "россия",
    "公益",
    "ελληνικά",
    "नमस्ते",
    "straße",
];

/// A host name of 1 to `max_labels` labels (RFC 1123), upper case now and then, an A-label
/// (in any case) now and then; the last of several labels starts with a letter, as top-level
/// domains do.
pub fn hostname(rng: &mut Rng, max_labels: usize) -> String {
    const FIRST: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    const INNER: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
    let case = rng.weighted(&[17, 2, 1]);
    let count = rng.between(1, max_labels);
    let labels: Vec<String> = (0..count)
        .map(|n| {
            if rng.chance(0.08) {
                return (*rng.pick(A_LABELS)).to_owned();
            }
            let len = if rng.chance(0.03) {
                63
            } else {
                rng.between(1, 12)
            };
            let mut label = String::new();
            for i in 0..len {
                let pool = if i == 0 || i == len - 1 { FIRST } else { INNER };
                let mut c = char::from(*rng.pick(pool));
                // A last label that looks numeric makes the WHATWG URL parser read the host
                // as an IPv4 address: top-level domains start with a letter (RFC 3696).
                if n == count - 1 && count > 1 && i == 0 && c.is_ascii_digit() {
                    c = 'a';
                }
                // `--` in third and fourth place is reserved for IDNA.
                if (i == 2 || i == 3) && c == '-' {
                    c = 'x';
                }
                label.push(c);
            }
            label
        })
        .collect();
    let name = labels.join(".");
    // Domain names are case-insensitive (RFC 4343): all upper case, or mixed.
    match case {
        0 => name,
        1 => name.to_ascii_uppercase(),
        _ => name
            .chars()
            .map(|c| {
                if rng.chance(0.5) {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect(),
    }
}

/// An internationalised host name (RFC 5890) of 1 to `max_labels` labels: U-labels of several
/// scripts among ASCII and A-labels, separated by a full stop (now and then the ideographic one,
/// which UTS #46 also reads as a dot).
fn idn_hostname(rng: &mut Rng, max_labels: usize) -> String {
    let count = rng.between(1, max_labels);
    let separator = if rng.chance(0.1) { "\u{3002}" } else { "." };
    (0..count)
        .map(|_| {
            if rng.chance(0.6) {
                (*rng.pick(U_LABELS)).to_owned()
            } else {
                hostname(rng, 1)
            }
        })
        .collect::<Vec<_>>()
        .join(separator)
}

fn ipv4(rng: &mut Rng) -> String {
    if rng.chance(0.1) {
        return (*rng.pick(&["0.0.0.0", "255.255.255.255", "127.0.0.1"])).to_owned();
    }
    Ipv4Addr::from(rng.next_u64() as u32).to_string()
}

fn ipv6(rng: &mut Rng) -> String {
    let mut segments = [0u16; 8];
    for segment in &mut segments {
        *segment = match rng.weighted(&[3, 1, 4]) {
            0 => 0,
            1 => rng.below(16) as u16,
            _ => rng.next_u64() as u16,
        };
    }
    let address = Ipv6Addr::from(segments);
    match rng.weighted(&[5, 2, 1, 1]) {
        0 => address.to_string(),
        1 => segments
            .iter()
            .map(|s| format!("{s:x}"))
            .collect::<Vec<_>>()
            .join(":"),
        2 => address.to_string().to_uppercase(),
        _ => format!("::ffff:{}", Ipv4Addr::from(rng.next_u64() as u32)),
    }
}

/// `HH:MM:SS[.frac]` (RFC 3339 `partial-time`; second 60 is a leap second).
pub fn is_partial_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 8 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let two = |i: usize| -> Option<u32> {
        let (x, y) = (b[i], b[i + 1]);
        (x.is_ascii_digit() && y.is_ascii_digit())
            .then(|| u32::from(x - b'0') * 10 + u32::from(y - b'0'))
    };
    let (Some(h), Some(m), Some(sec)) = (two(0), two(3), two(6)) else {
        return false;
    };
    if h > 23 || m > 59 || sec > 60 {
        return false;
    }
    match &b[8..] {
        [] => true,
        [b'.', digits @ ..] => !digits.is_empty() && digits.iter().all(u8::is_ascii_digit),
        _ => false,
    }
}

/// An RFC 3339 `full-date`.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d <= i64::from(days_in_month(y, m as u32))
}

/// `full-date "T" partial-time`: schemars' format for `chrono::NaiveDateTime`.
pub fn is_partial_date_time(s: &str) -> bool {
    match s.split_once(['T', 't']) {
        Some((date, time)) => is_date(date) && is_partial_time(time),
        None => false,
    }
}

/// `hostname` (RFC 1123, RFC 5891) as the `idna` crate reads it, apart from the library's
/// validator: ASCII, and a valid domain for UTS #46 with STD3 rules, hyphens and DNS lengths
/// checked, A-labels decoded and checked, in any case (RFC 4343).
pub fn is_hostname(s: &str) -> bool {
    s.is_ascii() && !s.ends_with('.') && idna::domain_to_ascii_strict(s).is_ok()
}

/// `idn-hostname` (RFC 5890) as the `idna` crate reads it: any domain UTS #46 with STD3 rules
/// maps to a valid ASCII one.
pub fn is_idn_hostname(s: &str) -> bool {
    !s.ends_with(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'])
        && idna::domain_to_ascii_strict(s).is_ok()
}

/// `email` (RFC 5321): a local part the `email_address` crate reads, at a host name
/// ([`is_hostname`]) or an address literal.
pub fn is_email(s: &str) -> bool {
    mailbox(s, is_hostname, false)
}

/// `idn-email` (RFC 6531): [`is_email`] with non-ASCII characters in the local part (each read
/// as a letter) and an internationalised domain ([`is_idn_hostname`]).
pub fn is_idn_email(s: &str) -> bool {
    mailbox(s, is_idn_hostname, true)
}

fn mailbox(s: &str, domain_ok: fn(&str) -> bool, non_ascii: bool) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    if !non_ascii && !local.is_ascii() {
        return false;
    }
    let local: String = local
        .chars()
        .map(|c| if c.is_ascii() { c } else { 'a' })
        .collect();
    let domain_ok = match domain.strip_prefix('[') {
        Some(literal) => email_address::EmailAddress::is_valid(&format!("a@[{literal}")),
        None => domain_ok(domain),
    };
    domain_ok && email_address::EmailAddress::is_valid(&format!("{local}@example.com"))
}

/// An IPv4 or IPv6 address: schemars' format for `std::net::IpAddr`.
pub fn is_ip(s: &str) -> bool {
    s.parse::<IpAddr>().is_ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (any year).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The instant an RFC 3339 date-time denotes, as (seconds since the epoch, nanoseconds); also
/// reads the signed and 5-digit years chrono writes for instants outside 0000–9999.
pub fn instant(s: &str) -> Option<(i64, u32)> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'-' => (-1, &s[1..]),
        b'+' => (1, &s[1..]),
        _ => (1, s),
    };
    let dash = rest.find('-')?;
    let year: i64 = sign * rest[..dash].parse::<i64>().ok()?;
    let rest = &rest[dash + 1..];
    let month: i64 = rest.get(0..2)?.parse().ok()?;
    let day: i64 = rest.get(3..5)?.parse().ok()?;
    let rest = rest.get(6..)?;
    let hour: i64 = rest.get(0..2)?.parse().ok()?;
    let minute: i64 = rest.get(3..5)?.parse().ok()?;
    let second: i64 = rest.get(6..8)?.parse().ok()?;
    let mut rest = rest.get(8..)?;
    let mut nanos = 0u32;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits: String = fraction.chars().take_while(char::is_ascii_digit).collect();
        rest = &fraction[digits.len()..];
        let mut padded = digits.chars().take(9).collect::<String>();
        while padded.len() < 9 {
            padded.push('0');
        }
        nanos = padded.parse().ok()?;
    }
    let offset_seconds = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let h: i64 = rest.get(1..3)?.parse().ok()?;
            let m: i64 = rest.get(4..6)?.parse().ok()?;
            sign * (h * 3600 + m * 60)
        }
    };
    let days = days_from_civil(year, month, day);
    Some((
        days * 86_400 + hour * 3600 + minute * 60 + second - offset_seconds,
        nanos,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_compare_across_offsets() {
        assert_eq!(
            instant("2024-01-01T01:30:00+01:30"),
            instant("2024-01-01T00:00:00Z")
        );
        assert_eq!(instant("1970-01-01T00:00:00.5Z"), Some((0, 500_000_000)));
        assert_eq!(
            instant("-0001-12-31T23:00:00Z"),
            instant("0000-01-01T00:00:00+01:00")
        );
    }

    #[test]
    fn generated_values_pass_their_checks() {
        let mut rng = Rng::new(3);
        for _ in 0..500 {
            assert!(is_partial_time(
                &generate("partial-time", &mut rng).unwrap()
            ));
            assert!(is_partial_date_time(
                &generate("partial-date-time", &mut rng).unwrap()
            ));
            assert!(is_ip(&generate("ip", &mut rng).unwrap()));
            assert!(is_date(&generate("date", &mut rng).unwrap()));
            for (format, check) in [
                ("hostname", is_hostname as fn(&str) -> bool),
                ("idn-hostname", is_idn_hostname),
                ("email", is_email),
                ("idn-email", is_idn_email),
            ] {
                let value = generate(format, &mut rng).unwrap();
                assert!(check(&value), "{format}: {value}");
            }
        }
        for format in ["hostname", "idn-hostname", "email", "idn-email"] {
            let check = match format {
                "hostname" => is_hostname as fn(&str) -> bool,
                "idn-hostname" => is_idn_hostname,
                "email" => is_email,
                _ => is_idn_email,
            };
            for _ in 0..50 {
                let value = invalid(format, &mut rng);
                assert!(!check(&value), "{format}: {value}");
            }
        }
        assert!(is_email("z@example.XN--55QW42G") && is_hostname("XN--BCHER-KVA.example"));
        assert!(!is_partial_time("24:00:00"));
        assert!(!is_date("2023-02-29"));
    }
}
