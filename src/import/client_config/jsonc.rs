//! JSON with comments, as VS Code and Cursor write their settings (`.vscode/mcp.json` is JSONC):
//! `//` and `/* */` comments and trailing commas are taken out, strings left as they are, so the
//! rest is plain JSON for serde. Taken-out text becomes spaces and newlines stay, so a parse error
//! still points at the file's own line and column.

/// `text` with comments and trailing commas blanked out.
pub fn strip_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '"' => {
                out.push(c);
                i += 1;
                while i < chars.len() {
                    out.push(chars[i]);
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        out.push(chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    if chars[i - 1] == '"' {
                        break;
                    }
                }
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    out.push(' ');
                    i += 1;
                }
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                out.extend([' ', ' ']);
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
                if i < chars.len() {
                    out.extend([' ', ' ']);
                    i += 2;
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    blank_trailing_commas(&mut out);
    out.into_iter().collect()
}

/// Blanks a comma followed (after whitespace) by `}` or `]`, outside strings.
fn blank_trailing_commas(text: &mut [char]) {
    let mut in_string = false;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            '\\' if in_string => i += 1,
            '"' => in_string = !in_string,
            ',' if !in_string => {
                let next = text[i + 1..].iter().find(|c| !c.is_whitespace());
                if matches!(next, Some('}') | Some(']')) {
                    text[i] = ' ';
                }
            }
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas_go_strings_stay() {
        let text = "{\n  // a server\n  \"a\": \"x // not a comment /* nor this */\", /* gone */\n  \"b\": [1, 2,],\n  \"c\": \"q\\\"\",\n}\n";
        let value: serde_json::Value = serde_json::from_str(&strip_comments(text)).unwrap();
        assert_eq!(value["a"], "x // not a comment /* nor this */");
        assert_eq!(value["b"], serde_json::json!([1, 2]));
        assert_eq!(value["c"], "q\"");
        assert_eq!(strip_comments(text).lines().count(), text.lines().count());
    }
}
