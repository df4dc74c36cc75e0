//! Leakage: whether a drafted request gives its tool away by name. A request leaks when it holds the
//! tool's name (case- and separator-insensitive: `get_weather`, `Get Weather`, `getWeather`,
//! `gEt_WeAtHeR`), a distinctive word of the name (one no other tool's name has and that is not
//! common English), or a parameter's name written as an identifier (`start_date`, `startDate`;
//! `start-date` and a one-word parameter such as `city` are ordinary English). A picker that
//! matched words would find such a request too easily, so it says nothing about how well the tool
//! is described. Both sides are compared as `untrusted_text::folded` reads them, so a name
//! disguised by zero-width characters, a soft hyphen, look-alike letters from another script
//! (Cyrillic `е`), fullwidth or mathematical letters leaks all the same. Pure.
//!
//! "Common English" is the 10,000 most frequent English words (letters only) of wordfreq 3.1.1 (Robyn Speer et
//! al., <https://github.com/rspeer/wordfreq>; its data is CC BY-SA 4.0), in `common_english.txt`.

pub use crate::lint::name_tokens as identifier_words;
use crate::untrusted_text;
use std::collections::HashSet;
use std::sync::OnceLock;

fn common_english() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| include_str!("common_english.txt").lines().collect())
}

/// The words of a tool's name that give it away: in no other tool's name, not common English, and
/// at least three letters long.
pub fn distinctive_words(tool: &str, all_tools: &[&str]) -> Vec<String> {
    let others: HashSet<String> = all_tools
        .iter()
        .filter(|name| **name != tool)
        .flat_map(|name| identifier_words(name))
        .collect();
    let mut words: Vec<String> = identifier_words(tool)
        .into_iter()
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .filter(|w| !others.contains(w) && !common_english().contains(w.as_str()))
        .collect();
    words.dedup();
    words
}

/// What gives the tool away in `request`, each as it was found; empty when nothing does.
pub fn leaked_words(
    request: &str,
    tool: &str,
    all_tools: &[&str],
    parameters: &[String],
) -> Vec<String> {
    let mut found = Vec::new();
    // The request as it is seen (invisible characters gone, compatibility forms unified, case
    // kept for the identifier splitter), cut into words as whitespace and punctuation separate
    // them (identifiers kept whole), then each folded.
    let visible = untrusted_text::visible(request);
    let tokens: Vec<&str> = visible
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .filter(|t| !t.is_empty())
        .collect();
    let words: Vec<String> = tokens
        .iter()
        .flat_map(|t| identifier_words(t))
        .map(|w| untrusted_text::folded(&w))
        .collect();
    let name_words: Vec<String> = identifier_words(tool)
        .iter()
        .map(|w| untrusted_text::folded(w))
        .collect();
    let compact_name: String = name_words.concat();
    let name_in_words = !name_words.is_empty()
        && words
            .windows(name_words.len())
            .any(|window| window == name_words.as_slice());
    // The name as one word, whatever its case or separators: `GETWEATHER`, `gEt_WeAtHeR`.
    let name_as_one_word = tokens.iter().any(|t| compact(t) == compact_name);
    if name_in_words || name_as_one_word {
        found.push(tool.to_string());
    }
    for word in distinctive_words(tool, all_tools) {
        let folded_word = untrusted_text::folded(&word);
        if words.iter().any(|w| same_word(w, &folded_word)) && !found.contains(&word) {
            found.push(word);
        }
    }
    for parameter in parameters {
        let parameter_words = identifier_words(parameter);
        if parameter_words.len() < 2 {
            continue;
        }
        let compact_parameter = untrusted_text::folded(&parameter_words.concat());
        let written = tokens.iter().any(|token| {
            // `check-in` is English; `check_in` and `checkIn` are code.
            let identifier_shaped =
                token.contains('_') || token.chars().skip(1).any(char::is_uppercase);
            identifier_shaped && compact(token) == compact_parameter
        });
        if written {
            found.push(parameter.clone());
        }
    }
    found
}

/// A word folded with its separators left out: what an identifier is, however it is written.
fn compact(token: &str) -> String {
    untrusted_text::folded(token)
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect()
}

/// The same word, or its plural.
fn same_word(written: &str, word: &str) -> bool {
    written == word
        || written
            .strip_prefix(word)
            .is_some_and(|rest| rest == "s" || rest == "es")
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOLS: &[&str] = &[
        "get_weather",
        "get_weather_forecast",
        "convert_currency",
        "geocode_address",
        "set_thermostat_mode",
    ];

    #[test]
    fn identifiers_split_at_separators_and_case_changes() {
        assert_eq!(identifier_words("getWeatherNow"), ["get", "weather", "now"]);
        assert_eq!(identifier_words("read-text_file"), ["read", "text", "file"]);
        assert_eq!(identifier_words("HTTPServer"), ["httpserver"]);
    }

    #[test]
    fn the_name_in_any_spelling_leaks() {
        for request in [
            "call get_weather for Lisbon",
            "Get Weather in Lisbon please",
            "getWeather Lisbon",
            "GETWEATHER lisbon",
        ] {
            assert_eq!(
                leaked_words(request, "get_weather", TOOLS, &[]),
                ["get_weather"],
                "{request}"
            );
        }
        assert!(leaked_words("Is it raining in Lisbon?", "get_weather", TOOLS, &[]).is_empty());
        // The words of the name apart are not the name.
        assert!(leaked_words("get me the weather", "get_weather", TOOLS, &[]).is_empty());
    }

    #[test]
    fn distinctive_words_are_neither_shared_nor_common() {
        // "weather" is in another tool's name; "forecast", "convert" and "currency" are among the
        // 10,000 most frequent English words; "geocode" and "thermostat" are not.
        assert!(distinctive_words("get_weather_forecast", TOOLS).is_empty());
        assert!(distinctive_words("get_weather", TOOLS).is_empty());
        assert!(distinctive_words("convert_currency", TOOLS).is_empty());
        assert_eq!(distinctive_words("geocode_address", TOOLS), ["geocode"]);
        assert_eq!(
            leaked_words(
                "Set both Thermostats to eco, please",
                "set_thermostat_mode",
                TOOLS,
                &[]
            ),
            ["thermostat"]
        );
        assert!(leaked_words("Convert 100 USD to EUR", "convert_currency", TOOLS, &[]).is_empty());
    }

    #[test]
    fn a_disguised_name_leaks_all_the_same() {
        for request in [
            "call get\u{200b}_weather for Oslo",
            "call get_wea\u{00ad}ther for Oslo",
            "call g\u{0435}t_w\u{0435}ather for Oslo",
            "call ｇｅｔ＿ｗｅａｔｈｅｒ for Oslo",
            "call 𝐠𝐞𝐭_𝐰𝐞𝐚𝐭𝐡𝐞𝐫 for Oslo",
            "call gEt_WeAtHeR for Oslo",
            "call get\u{2060}weather for Oslo",
        ] {
            assert_eq!(
                leaked_words(request, "get_weather", TOOLS, &[]),
                ["get_weather"],
                "{request:?}"
            );
        }
        assert_eq!(
            leaked_words(
                "Set the th\u{0435}rm\u{043e}stat to eco",
                "set_thermostat_mode",
                TOOLS,
                &[]
            ),
            ["thermostat"]
        );
        let parameters = ["start_date".to_string()];
        assert_eq!(
            leaked_words(
                "from st\u{0430}rt_d\u{0430}te on",
                "get_weather_forecast",
                TOOLS,
                &parameters
            ),
            ["start_date"]
        );
    }

    #[test]
    fn parameter_names_leak_only_as_identifiers() {
        let parameters = ["start_date".to_string(), "city".to_string()];
        let leaked = |r: &str| leaked_words(r, "get_weather_forecast", TOOLS, &parameters);
        assert_eq!(leaked("weather with start_date 2026-12-01"), ["start_date"]);
        assert_eq!(leaked("weather, startDate tomorrow"), ["start_date"]);
        assert!(leaked("weather from the start date of my trip in this city").is_empty());
        assert!(leaked("weather from my start-date on").is_empty());
    }

    /// One way of disguising a character of a name.
    fn disguise(c: char, how: u8) -> String {
        let homoglyph = match c {
            'a' => '\u{0430}',
            'e' => '\u{0435}',
            'o' => '\u{043e}',
            'p' => '\u{0440}',
            'c' => '\u{0441}',
            'x' => '\u{0445}',
            'y' => '\u{0443}',
            'i' => '\u{0456}',
            other => other,
        };
        match how % 6 {
            0 => c.to_string(),
            1 => format!("{c}\u{200b}"),
            2 => format!("{c}\u{00ad}"),
            3 => homoglyph.to_string(),
            // Fullwidth forms of ASCII sit 0xFEE0 above it.
            4 if c.is_ascii_graphic() => char::from_u32(c as u32 + 0xFEE0).unwrap().to_string(),
            _ => c.to_uppercase().to_string(),
        }
    }

    proptest::proptest! {
        /// However a tool's name is disguised character by character, it leaks.
        #[test]
        fn any_disguise_of_the_name_leaks(
            tool in proptest::sample::select(TOOLS),
            hows in proptest::collection::vec(0u8..6, 30),
        ) {
            let disguised: String = tool
                .chars()
                .zip(hows.iter().cycle())
                .map(|(c, how)| disguise(c, *how))
                .collect();
            let request = format!("please run {disguised} for Oslo tomorrow");
            let leaked = leaked_words(&request, tool, TOOLS, &[]);
            proptest::prop_assert!(leaked.contains(&tool.to_string()), "{request:?}: {leaked:?}");
        }
    }
}
