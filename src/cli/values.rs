//! How a flag's text becomes a value when clap's own parsers cannot say it: waits in seconds that
//! fit a `Duration`, amounts of dollars, fractions. Each refuses with a sentence naming what it
//! wants, which clap prints after the flag's name.

/// The longest wait a flag may ask for: a week. Anything longer is a typo, and `inf` or `1e300`
/// would not fit in a `Duration` at all.
pub const LONGEST_WAIT_SECONDS: f64 = 7.0 * 86_400.0;

/// A wait in seconds: a finite number above 0, at most a week.
/// `--allow`: `RULE` or `TOOL:RULE`, the rule one of the lint's.
pub(super) fn parse_allowance(text: &str) -> Result<crate::lint::Allowance, String> {
    crate::lint::Allowance::parse(text)
}

pub(super) fn parse_wait(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= LONGEST_WAIT_SECONDS => Ok(s),
        _ => Err(format!(
            "{text:?} is not a number of seconds above 0 and at most {LONGEST_WAIT_SECONDS} (a week), e.g. 120 or 0.5"
        )),
    }
}

/// `--env NAME=VALUE`: a variable for a server started on stdio.
pub(super) fn parse_env_assignment(text: &str) -> Result<(String, String), String> {
    crate::import::server_command::assignment(text).ok_or_else(|| {
        format!(
            "{:?} is not NAME=VALUE (a name of letters, digits and _, not starting with a digit)",
            text.split('=').next().unwrap_or(text)
        )
    })
}

/// `--input ID=VAR`: a config's input id and the variable its value is read from.
pub(super) fn parse_input_source(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((id, variable)) if !id.is_empty() && !variable.is_empty() => {
            Ok((id.to_string(), variable.to_string()))
        }
        _ => Err(format!(
            "{text:?} is not ID=VAR (the input's id, and the environment variable holding its value)"
        )),
    }
}

/// A wait in seconds that may be 0: a finite number from 0 to a week.
pub(super) fn parse_wait_or_none(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(0.0) => Ok(0.0),
        _ => parse_wait(text),
    }
}

/// An amount of US dollars: a finite number, 0 or more.
pub(super) fn parse_dollars(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(d) if d.is_finite() && d >= 0.0 => Ok(d),
        _ => Err(format!(
            "{text:?} is not an amount of US dollars, e.g. 2.50"
        )),
    }
}

/// A share strictly between 0 and 1.
pub(super) fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if f > 0.0 && f < 1.0 => Ok(f),
        _ => Err(format!(
            "{text:?} is not a fraction between 0 and 1, e.g. 0.5"
        )),
    }
}

/// A number of minutes above zero (`--minutes 30`, `--minutes 2.5`).
pub(super) fn parse_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if m > 0.0 && m.is_finite() => Ok(m),
        _ => Err(format!(
            "{text:?} is not a number of minutes above 0, e.g. 30"
        )),
    }
}
