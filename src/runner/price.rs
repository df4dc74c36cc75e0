//! Prices, in US dollars per million tokens, for the run's cost column and `--budget`. The built-in
//! table holds list prices the providers published in 2025 for a few common models; prices change,
//! so `--price SPEC=IN,OUT` and the config file's `price_input` / `price_output` override it, and
//! the manifest records the prices a run used.

use crate::settings::Price;

/// (backend spec, input, output) in USD per million tokens.
const LIST_PRICES: &[(&str, f64, f64)] = &[
    ("openai:gpt-4o", 2.50, 10.00),
    ("openai:gpt-4o-mini", 0.15, 0.60),
    ("openai:gpt-4.1", 2.00, 8.00),
    ("openai:gpt-4.1-mini", 0.40, 1.60),
    ("openai:gpt-4.1-nano", 0.10, 0.40),
    ("anthropic:claude-3-5-haiku-latest", 0.80, 4.00),
    ("anthropic:claude-sonnet-4-0", 3.00, 15.00),
    ("anthropic:claude-opus-4-0", 15.00, 75.00),
];

/// The built-in price of a backend spec, if the table has it.
pub fn list_price(spec: &str) -> Option<Price> {
    LIST_PRICES
        .iter()
        .find(|(s, _, _)| *s == spec)
        .map(|&(_, input, output)| Price {
            input_per_mtok: input,
            output_per_mtok: output,
        })
}

/// Parses `SPEC=IN,OUT` from the command line.
pub fn parse_price_override(text: &str) -> Result<(String, Price), String> {
    let (spec, prices) = text.split_once('=').ok_or_else(|| {
        format!("--price {text:?}: write SPEC=IN,OUT, e.g. openai:gpt-4o-mini=0.15,0.60")
    })?;
    let parsed: Vec<f64> = prices
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            format!("--price {text:?}: IN and OUT must be numbers (dollars per million tokens)")
        })?;
    match parsed.as_slice() {
        [input, output] if *input >= 0.0 && *output >= 0.0 => Ok((
            spec.to_string(),
            Price {
                input_per_mtok: *input,
                output_per_mtok: *output,
            },
        )),
        _ => Err(format!(
            "--price {text:?}: give two non-negative numbers, input then output"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_are_per_million_tokens() {
        let price = list_price("openai:gpt-4o-mini").unwrap();
        assert!((price.cost(1_000_000, 1_000_000) - 0.75).abs() < 1e-12);
        assert!((price.cost(2_000, 500) - 0.0006).abs() < 1e-12);
        assert_eq!(list_price("openai:unknown"), None);
    }

    #[test]
    fn overrides_parse_or_explain() {
        let (spec, price) = parse_price_override("openai:x=1,2.5").unwrap();
        assert_eq!(spec, "openai:x");
        assert_eq!(price.output_per_mtok, 2.5);
        assert!(parse_price_override("openai:x").is_err());
        assert!(parse_price_override("openai:x=1").is_err());
        assert!(parse_price_override("openai:x=a,b").is_err());
        assert!(parse_price_override("openai:x=-1,2").is_err());
    }
}
