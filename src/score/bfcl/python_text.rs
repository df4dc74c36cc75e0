//! Python's own readings of text that BFCL's Java and JavaScript type converters rely on:
//! `int(s)`, `float(s)`, `str.strip()`, `s[1:-1]`, and `re`'s `$` (the end, or just before a final
//! newline).
//! Python reads every Unicode decimal digit (`int("４２") == 42`) and allows `_` between digits;
//! these do the same. One gap: `float("nan")` and `float("inf")` have no JSON value, so they read
//! as not-a-number text (`None`), where Python would give a float.

/// Python's `str.isspace()` for one character: Unicode white space plus the four ASCII separators
/// (`\x1c`–`\x1f`) Python also counts.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// `s.strip()`.
pub fn strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// Python's `re.match(p, s)` for a pattern anchored with `^` and `$`: `$` may also stand before a
/// final newline.
pub fn matches_whole(regex: &regex::Regex, text: &str) -> bool {
    regex.is_match(text)
        || text
            .strip_suffix('\n')
            .is_some_and(|before| regex.is_match(before))
}

/// Python's `s[1:-1]`.
pub fn inner(value: &str) -> String {
    let chars: Vec<char> = value.chars().collect();
    if chars.len() < 2 {
        return String::new();
    }
    chars[1..chars.len() - 1].iter().collect()
}

/// The value of a Unicode decimal digit (general category Nd). Such digits come in runs of ten,
/// 0 to 9 in order, so the value is the distance from the start of the character's run, mod 10.
fn digit_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return c.to_digit(10);
    }
    if !is_decimal_digit(c) {
        return None;
    }
    let mut start = c as u32;
    while let Some(before) = start.checked_sub(1).and_then(char::from_u32) {
        if !is_decimal_digit(before) {
            break;
        }
        start -= 1;
    }
    Some((c as u32 - start) % 10)
}

/// Whether `c` is a Unicode decimal digit (what `\d` matches in Python's `re` and Rust's `regex`).
fn is_decimal_digit(c: char) -> bool {
    static DIGIT: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^\d$").expect("a valid pattern"));
    let mut buffer = [0u8; 4];
    DIGIT.is_match(c.encode_utf8(&mut buffer))
}

/// Digits (with single `_` between them) as ASCII, or `None`.
fn ascii_digits(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut last_underscore = true;
    for c in text.chars() {
        if c == '_' {
            if last_underscore {
                return None;
            }
            last_underscore = true;
            continue;
        }
        out.push(char::from_digit(digit_value(c)?, 10)?);
        last_underscore = false;
    }
    (!out.is_empty() && !last_underscore).then_some(out)
}

/// Python's `int(s)` for a decimal string, or `None` where it raises `ValueError`. Values beyond
/// 64 bits read as `None` too (JSON numbers here are 64-bit).
pub fn int(text: &str) -> Option<i64> {
    let text = strip(text);
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let digits = ascii_digits(digits)?;
    let magnitude: i128 = digits.parse().ok()?;
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// Python's `float(s)`, or `None` where it raises (and for infinities and NaN; see the module doc).
pub fn float(text: &str) -> Option<f64> {
    let text = strip(text);
    let (sign, body) = match text.chars().next() {
        Some(c @ ('+' | '-')) => (if c == '-' { "-" } else { "" }, &text[1..]),
        _ => ("", text),
    };
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], Some(&body[at + 1..])),
        None => (body, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let whole = if whole.is_empty() {
        String::new()
    } else {
        ascii_digits(whole)?
    };
    let fraction = match fraction {
        Some("") | None => String::new(),
        Some(f) => ascii_digits(f)?,
    };
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut literal = format!("{sign}{whole}.{fraction}");
    if literal.ends_with('.') {
        literal.push('0');
    }
    if literal.starts_with('.') || literal.starts_with("-.") {
        literal = literal.replacen('.', "0.", 1);
    }
    if let Some(exponent) = exponent {
        let (exponent_sign, digits) = match exponent.chars().next() {
            Some(c @ ('+' | '-')) => (if c == '-' { "-" } else { "" }, &exponent[1..]),
            _ => ("", exponent),
        };
        literal.push('e');
        literal.push_str(exponent_sign);
        literal.push_str(&ascii_digits(digits)?);
    }
    literal.parse::<f64>().ok().filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_numbers_the_way_python_does() {
        assert_eq!(int(" 42\n"), Some(42));
        assert_eq!(int("+7"), Some(7));
        assert_eq!(int("1_000"), Some(1000));
        assert_eq!(int("1__0"), None);
        assert_eq!(int("４２"), Some(42));
        assert_eq!(int("٣"), Some(3));
        assert_eq!(int("4.0"), None);
        assert_eq!(int(""), None);
        assert_eq!(float("2.75"), Some(2.75));
        assert_eq!(float("5."), Some(5.0));
        assert_eq!(float(".5"), Some(0.5));
        assert_eq!(float("-1e3"), Some(-1000.0));
        assert_eq!(float("1E-2"), Some(0.01));
        assert_eq!(float("3f"), None);
        assert_eq!(float("."), None);
        assert_eq!(float("１.５"), Some(1.5));
        assert_eq!(strip("\x1c a \u{a0}"), "a");
    }
}
