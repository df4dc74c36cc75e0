//! The ways people write a date or a time of day, for the support check: an argument
//! `2023-01-15` is stated by a request that says "15th Jan 2023", "January 15, 2023", "15/01/2023"
//! or "2023-01-15", and `15:00` by "3pm", "3 p.m." or "15:00". Each form is given as the support
//! check's normalised text sees it (lower case, punctuation as spaces). A date without its year
//! ("on March 3rd") is not a form: the year would be the model's guess, and the task's. Which day
//! "tomorrow" is depends on a date the request does not state, so relative days are not forms
//! either. Month names in English, Spanish, French, German, Italian and Portuguese.

/// Month names, January first, in the languages the shipped suites' requests are written in
/// (English, Spanish, French, German, Italian, Portuguese), as normalised text has them (lower
/// case; accents kept).
const MONTHS: [[&str; 6]; 12] = [
    [
        "january", "enero", "janvier", "januar", "gennaio", "janeiro",
    ],
    [
        "february",
        "febrero",
        "février",
        "februar",
        "febbraio",
        "fevereiro",
    ],
    ["march", "marzo", "mars", "märz", "marzo", "março"],
    ["april", "abril", "avril", "april", "aprile", "abril"],
    ["may", "mayo", "mai", "mai", "maggio", "maio"],
    ["june", "junio", "juin", "juni", "giugno", "junho"],
    ["july", "julio", "juillet", "juli", "luglio", "julho"],
    ["august", "agosto", "août", "august", "agosto", "agosto"],
    [
        "september",
        "septiembre",
        "septembre",
        "september",
        "settembre",
        "setembro",
    ],
    [
        "october", "octubre", "octobre", "oktober", "ottobre", "outubro",
    ],
    [
        "november",
        "noviembre",
        "novembre",
        "november",
        "novembre",
        "novembro",
    ],
    [
        "december",
        "diciembre",
        "décembre",
        "dezember",
        "dicembre",
        "dezembro",
    ],
];

/// The normalised ways of writing `value` when it is an ISO date (`YYYY-MM-DD`) or a time of day
/// (`HH:MM`, `HH:MM:SS` with zero seconds); none for anything else.
pub fn written_forms(value: &str) -> Vec<String> {
    iso_date(value)
        .map(|(y, m, d)| date_forms(y, m, d))
        .or_else(|| time_of_day(value).map(|(h, m)| time_forms(h, m)))
        .unwrap_or_default()
}

fn iso_date(value: &str) -> Option<(u32, u32, u32)> {
    let mut parts = value.split('-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
}

fn time_of_day(value: &str) -> Option<(u32, u32)> {
    let mut parts = value.split(':');
    let (h, m) = (parts.next()?, parts.next()?);
    if let Some(seconds) = parts.next()
        && (seconds != "00" || parts.next().is_some())
    {
        return None;
    }
    if h.is_empty() || h.len() > 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    (h < 24 && m < 60).then_some((h, m))
}

fn ordinal(d: u32) -> String {
    let suffix = match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{d}{suffix}")
}

fn date_forms(y: u32, m: u32, d: u32) -> Vec<String> {
    let english = MONTHS[m as usize - 1][0];
    let mut names: Vec<String> = MONTHS[m as usize - 1]
        .iter()
        .map(|name| name.to_string())
        .collect();
    names.push(english[..3].to_string());
    if m == 9 {
        names.push("sept".into());
    }
    names.sort();
    names.dedup();
    let days = [d.to_string(), format!("{d:02}"), ordinal(d)];
    let years = [y.to_string(), format!("{:02}", y % 100)];
    let mut forms = vec![format!("{y} {m:02} {d:02}")];
    for name in &names {
        for day in &days {
            for year in &years {
                forms.push(format!("{day} {name} {year}"));
                forms.push(format!("{day} of {name} {year}"));
                forms.push(format!("{name} {day} {year}"));
                // "15 de enero de 2023", "15 de janeiro de 2023".
                forms.push(format!("{day} de {name} de {year}"));
            }
        }
    }
    // Numbers only, day first or month first (both readings are how someone writes it), with the
    // whole year: "15/01/2023", "1/15/2023".
    for day in [d.to_string(), format!("{d:02}")] {
        for month in [m.to_string(), format!("{m:02}")] {
            forms.push(format!("{day} {month} {y}"));
            forms.push(format!("{month} {day} {y}"));
        }
    }
    forms
}

fn time_forms(h: u32, m: u32) -> Vec<String> {
    let mut forms = vec![format!("{h} {m:02}"), format!("{h:02} {m:02}")];
    let twelve = match h % 12 {
        0 => 12,
        other => other,
    };
    let half = if h < 12 { "a" } else { "p" };
    let clock = if m == 0 {
        vec![twelve.to_string()]
    } else {
        vec![format!("{twelve} {m:02}")]
    };
    for at in clock {
        // "3pm", "3 pm", "3 p.m." (normalised "3 p m").
        forms.push(format!("{at}{half}m"));
        forms.push(format!("{at} {half}m"));
        forms.push(format!("{at} {half} m"));
    }
    if m == 0 {
        forms.push(format!("{h}h"));
        forms.push(format!("{h} uhr"));
        // "3 o'clock".
        forms.push(format!("{twelve} o clock"));
        match h {
            12 => forms.push("noon".into()),
            0 => forms.push("midnight".into()),
            _ => {}
        }
    } else {
        forms.push(format!("{h}h{m:02}"));
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(value: &str, form: &str) -> bool {
        written_forms(value).iter().any(|f| f == form)
    }

    #[test]
    fn dates_as_people_write_them() {
        for form in [
            "2023 01 15",
            "15th jan 2023",
            "15 january 2023",
            "january 15 2023",
            "jan 15th 2023",
            "15 01 2023",
            "1 15 2023",
            "15th of january 2023",
            "15 jan 23",
        ] {
            assert!(has("2023-01-15", form), "{form}");
        }
        assert!(has("2026-09-02", "2nd sept 2026"));
        assert!(has("2023-01-15", "15 de enero de 2023") && has("2023-07-15", "15 juillet 2023"));
        assert!(has("2023-04-10", "10 04 2023"), "10.04.2023");
        assert!(has("2023-03-01", "1 märz 2023"));
        assert!(has("2026-11-11", "11th nov 2026"), "11th, not 11st");
        assert!(!has("2023-01-15", "15 january"), "no year, no date");
        assert!(written_forms("2023-13-01").is_empty());
        assert!(written_forms("Lisbon").is_empty());
    }

    #[test]
    fn times_as_people_write_them() {
        for form in ["15 00", "3pm", "3 pm", "3 p m", "15h", "15 uhr"] {
            assert!(has("15:00", form), "{form}");
        }
        for form in ["9 30am", "9 30 am", "09 30", "9h30"] {
            assert!(has("09:30", form), "{form}");
        }
        assert!(has("12:00", "noon") && has("00:00", "midnight") && has("00:00", "12am"));
        assert!(has("15:00:00", "3pm"));
        assert!(written_forms("15:00:30").is_empty() && written_forms("25:00").is_empty());
    }
}
