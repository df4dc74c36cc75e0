//! A stdio server's command line as people write it: words split as a shell would, `NAME=value`
//! words before the program taken as its environment (`FOO=1 node server.js` works in a shell, so
//! it works here), `--env NAME=VALUE` and `--cwd DIR` added — or, from a client config, the
//! words already apart, with the words as the file wrote them (`${input:key}` unexpanded) to
//! record. The values are given to the child only: what a toolset file records of the command is
//! its words without them, and the names.

use crate::mcp::client::StdioLaunch;
use std::path::PathBuf;
use std::time::Duration;

/// A server to start on stdio, as the command line named it.
#[derive(Debug, Clone, Default)]
pub struct StdioServer {
    /// The command line, e.g. `FOO=1 node server.js --stdio` (unused when `argv` is given).
    pub line: String,
    /// The words, when a client config gave them as a list: the words started, and the words
    /// as the file wrote them (variables unexpanded), which are what a toolset records.
    pub argv: Option<ConfiguredWords>,
    /// `--env NAME=VALUE`, in order.
    pub env: Vec<(String, String)>,
    pub cwd: Option<PathBuf>,
}

/// A command a client config gave as a list of words.
#[derive(Debug, Clone, Default)]
pub struct ConfiguredWords {
    /// What is started, variables expanded.
    pub words: Vec<String>,
    /// What the file says, variables as written: may be recorded, since it holds no value.
    pub as_written: Vec<String>,
}

/// The command line read: environment assignments apart from the words that start the server.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandWords {
    pub env: Vec<(String, String)>,
    pub words: Vec<String>,
}

impl StdioServer {
    /// A server started by `line`, with nothing added.
    pub fn from_line(line: &str) -> StdioServer {
        StdioServer {
            line: line.to_string(),
            ..StdioServer::default()
        }
    }

    /// The words that start it and every variable set for it (the line's own first, then `--env`).
    pub fn words(&self) -> Result<CommandWords, String> {
        if let Some(argv) = &self.argv {
            if argv.words.is_empty() {
                return Err("the server has no command".to_string());
            }
            return Ok(CommandWords {
                env: self.env.clone(),
                words: argv.words.clone(),
            });
        }
        let mut words = split_command(&self.line)?;
        let assignments = words
            .iter()
            .take_while(|word| assignment(word).is_some())
            .count();
        let mut env: Vec<(String, String)> = words
            .drain(..assignments)
            .filter_map(|word| assignment(&word))
            .collect();
        env.extend(self.env.iter().cloned());
        if words.is_empty() {
            return Err("--stdio needs a command".to_string());
        }
        Ok(CommandWords { env, words })
    }

    /// What the client starts, each request waiting up to `timeout`.
    pub fn launch(&self, timeout: Duration) -> Result<StdioLaunch, String> {
        let CommandWords { env, words } = self.words()?;
        let (program, args) = words.split_first().ok_or("--stdio needs a command")?;
        let mut launch = StdioLaunch::new(program, args);
        launch.env = env;
        launch.cwd = self.cwd.clone();
        launch.request_timeout = timeout;
        Ok(launch)
    }

    /// The command as a toolset file records it: its words, and the names (never the values) of
    /// the variables set for it.
    pub fn recorded(&self) -> (Vec<String>, Vec<String>) {
        if let Some(argv) = &self.argv {
            let names = self.env.iter().map(|(name, _)| name.clone()).collect();
            return (argv.as_written.clone(), names);
        }
        match self.words() {
            Ok(CommandWords { env, words }) => {
                (words, env.into_iter().map(|(name, _)| name).collect())
            }
            Err(_) => (Vec::new(), Vec::new()),
        }
    }
}

/// `NAME=value` with a name a shell would take as a variable.
pub fn assignment(word: &str) -> Option<(String, String)> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let is_name = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_name.then(|| (name.to_string(), value.to_string()))
}

/// Splits a command line into words: whitespace separates, single and double quotes group, a
/// backslash escapes the next character (outside single quotes).
pub fn split_command(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unclosed single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => word.push(chars.next().ok_or("trailing backslash")?),
                        Some(c) => word.push(c),
                        None => return Err("unclosed double quote".into()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.push(chars.next().ok_or("trailing backslash")?);
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        assert_eq!(
            split_command(r#"node "my server.mjs" --flag 'a b' c\ d"#).unwrap(),
            ["node", "my server.mjs", "--flag", "a b", "c d"]
        );
        assert!(split_command("node 'unclosed").is_err());
        assert!(split_command("   ").unwrap().is_empty());
    }

    #[test]
    fn leading_assignments_are_the_environment_and_are_not_recorded() {
        let server = StdioServer {
            line: "API_KEY=s3cret DEBUG=1 node server.js --port=3".into(),
            env: vec![("EXTRA".into(), "x=y".into())],
            cwd: None,
            argv: None,
        };
        let words = server.words().unwrap();
        assert_eq!(words.words, ["node", "server.js", "--port=3"]);
        assert_eq!(
            words.env,
            [
                ("API_KEY".to_string(), "s3cret".to_string()),
                ("DEBUG".to_string(), "1".to_string()),
                ("EXTRA".to_string(), "x=y".to_string())
            ]
        );
        let (recorded, names) = server.recorded();
        assert_eq!(recorded, ["node", "server.js", "--port=3"]);
        assert_eq!(names, ["API_KEY", "DEBUG", "EXTRA"]);
        assert!(StdioServer::from_line("A=1").words().is_err(), "no command");
        assert_eq!(assignment("--x=1"), None);
        assert_eq!(assignment("1A=1"), None);
    }
}
