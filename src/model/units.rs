//! Byte sizes and their human forms (`64MiB`, `1GiB`, `4096`).

/// Bytes in a KiB.
pub const KIB: f64 = 1024.0;
/// Bytes in a MiB.
pub const MIB: f64 = KIB * 1024.0;
/// Bytes in a GiB.
pub const GIB: f64 = MIB * 1024.0;
/// Bytes in a TiB.
pub const TIB: f64 = GIB * 1024.0;

/// Largest message a scenario accepts.
pub const MAX_BYTES: f64 = TIB;

/// Binary units, largest first, for formatting.
const BINARY_UNITS: [(&str, f64); 4] = [("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)];

/// Parses a byte count: a plain integer or a number with a suffix B, KB, MB, GB, TB (10³ steps) or
/// KiB, MiB, GiB, TiB (2¹⁰ steps). Case-insensitive. Returns `None` on anything else.
pub fn parse_bytes(s: &str) -> Option<f64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, suffix) = t.split_at(split);
    if num.is_empty() || num.chars().filter(|c| *c == '.').count() > 1 {
        return None;
    }
    let value: f64 = num.parse().ok()?;
    let mult = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => KIB,
        "mib" => MIB,
        "gib" => GIB,
        "tib" => TIB,
        _ => return None,
    };
    let bytes = value * mult;
    (bytes.is_finite() && bytes.fract() == 0.0).then_some(bytes)
}

/// Parses a count with an optional decimal suffix: `15T`, `2.5B`, `300M`, `64K`, `1e12`.
pub fn parse_count(s: &str) -> Option<f64> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() && !t.ends_with("e") => {
            let m = match c.to_ascii_uppercase() {
                'K' => 1e3,
                'M' => 1e6,
                'B' | 'G' => 1e9,
                'T' => 1e12,
                _ => return None,
            };
            (&t[..i], m)
        }
        _ => (t, 1.0),
    };
    let v: f64 = num.parse().ok()?;
    let x = v * mult;
    (x.is_finite() && x >= 0.0).then_some(x)
}

/// A count with thousands separators: 65536 → "65,536".
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Formats a count with a decimal suffix when exact (`15T`, `2B`), else as a plain number.
pub fn format_count(x: f64) -> String {
    for (name, size) in [("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)] {
        if x >= size && (x / size).fract() == 0.0 {
            return format!("{}{name}", x / size);
        }
    }
    format!("{x}")
}

/// Formats bytes with a binary suffix when exact (`1GiB`), else as a plain integer.
pub fn format_bytes(b: f64) -> String {
    for (name, size) in BINARY_UNITS {
        if b >= size && (b / size).fract() == 0.0 {
            return format!("{}{}", b / size, name);
        }
    }
    format!("{b}")
}

/// A human label for bytes with one decimal (`1.5 GiB`), for display only.
pub fn human_bytes(b: f64) -> String {
    for (name, size) in BINARY_UNITS {
        if b >= size {
            let v = b / size;
            return if v.fract() == 0.0 {
                format!("{v} {name}")
            } else {
                format!("{v:.1} {name}")
            };
        }
    }
    format!("{b} B")
}

/// A duration in days as a reader says it: "3.2 days", "9.6 hours", "17 minutes".
pub fn days_text(d: f64) -> String {
    if !d.is_finite() {
        "never (failures outpace progress)".to_string()
    } else if d >= 100.0 {
        format!("{} days", thousands(d.round() as u64))
    } else if d >= 1.0 {
        format!("{d:.1} days")
    } else if d * 24.0 >= 1.0 {
        format!("{:.1} hours", d * 24.0)
    } else if d * 1440.0 >= 1.0 {
        tenths_below_ten(d * 1440.0, "minutes")
    } else {
        tenths_below_ten(d * 86400.0, "seconds")
    }
}

/// `x` units, with a decimal below ten ("1.5 minutes", not "1 minutes" for 1.46).
fn tenths_below_ten(x: f64, unit: &str) -> String {
    if x < 9.95 {
        format!("{x:.1} {unit}")
    } else {
        format!("{x:.0} {unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_and_suffixed_sizes() {
        assert_eq!(parse_bytes("4096"), Some(4096.0));
        assert_eq!(parse_bytes("64MiB"), Some(67108864.0));
        assert_eq!(parse_bytes("1GiB"), Some(1073741824.0));
        assert_eq!(parse_bytes("1gb"), Some(1e9));
        assert_eq!(parse_bytes("0.5KiB"), Some(512.0));
        for bad in ["", "-1", "1.2.3", "abc", "NaN", "inf", "1XB", "0.3"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn formats_round_trip() {
        for b in [1.0, 4096.0, 67108864.0, 1073741824.0, 1000.0] {
            assert_eq!(parse_bytes(&format_bytes(b)), Some(b));
        }
    }
}
