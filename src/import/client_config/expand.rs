//! The variables client configs write, filled in: `${VAR}` and `${VAR:-default}` (Claude Code),
//! `${env:VAR}` (VS Code, Cursor), `${input:ID}` (VS Code's prompted inputs, taken here from
//! `$MCPICK_INPUT_<ID>` or the variable `--input ID=VAR` names: CI never prompts), and the
//! folders `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`.
//! A variable that is not set is an error naming it and where it stands; nothing here writes a
//! value anywhere.

use std::collections::HashMap;
use std::path::PathBuf;

/// Where values come from: the environment (the process's, or one given for tests), the
/// `--input ID=VAR` pairs, and the folder the config belongs to.
pub struct Environment {
    variables: HashMap<String, String>,
    /// `--input ID=VAR`: the input `ID` takes the value of `$VAR`.
    inputs: Vec<(String, String)>,
    /// VS Code inputs' defaults, by id, for inputs the environment does not fill.
    input_defaults: HashMap<String, String>,
    pub workspace: PathBuf,
}

impl Environment {
    /// The process's environment.
    pub fn from_process(inputs: &[(String, String)], workspace: PathBuf) -> Environment {
        Environment::from_pairs(std::env::vars(), inputs, workspace)
    }

    /// A given environment.
    pub fn from_pairs(
        variables: impl IntoIterator<Item = (String, String)>,
        inputs: &[(String, String)],
        workspace: PathBuf,
    ) -> Environment {
        Environment {
            variables: variables.into_iter().collect(),
            inputs: inputs.to_vec(),
            input_defaults: HashMap::new(),
            workspace,
        }
    }

    /// Records the defaults of a file's inputs, used when the environment gives no value.
    pub fn with_input_defaults(mut self, defaults: HashMap<String, String>) -> Environment {
        self.input_defaults = defaults;
        self
    }

    /// The value of variable `name`, if set.
    pub fn variable(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str)
    }

    /// The value of input `id`: from the variable `--input` names for it, else
    /// `$MCPICK_INPUT_<ID>`, else its default.
    pub fn input(&self, id: &str) -> Result<String, String> {
        if let Some((_, variable)) = self.inputs.iter().find(|(input, _)| input == id) {
            return self.variable(variable).map(str::to_string).ok_or_else(|| {
                format!("input `{id}` is to come from ${variable} (--input {id}={variable}), which is not set")
            });
        }
        let variable = input_variable(id);
        if let Some(value) = self.variable(&variable) {
            return Ok(value.to_string());
        }
        if let Some(value) = self.input_defaults.get(id) {
            return Ok(value.clone());
        }
        Err(format!(
            "input `{id}` has no value: a client would prompt for it; here set ${variable} or give --input {id}=VAR"
        ))
    }

    /// `text` with every `${...}` filled in. `place` names where the text stands (a key path)
    /// for the error.
    pub fn expand(&self, text: &str, place: &str) -> Result<String, String> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let after = &rest[start + 2..];
            let end = after
                .find('}')
                .ok_or_else(|| format!("{place}: `${{` without its closing `}}` in {text:?}"))?;
            out.push_str(&self.variable_value(&after[..end], place)?);
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn variable_value(&self, inside: &str, place: &str) -> Result<String, String> {
        let home = || std::env::var("HOME").unwrap_or_default();
        match inside {
            "workspaceFolder" => return Ok(self.workspace.display().to_string()),
            "workspaceFolderBasename" => {
                return Ok(self
                    .workspace
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default());
            }
            "userHome" => return Ok(self.variable("HOME").map_or_else(home, str::to_string)),
            "pathSeparator" | "/" => return Ok(std::path::MAIN_SEPARATOR.to_string()),
            _ => {}
        }
        if let Some(name) = inside.strip_prefix("env:") {
            return self
                .variable(name)
                .map(str::to_string)
                .ok_or_else(|| format!("{place}: ${{env:{name}}} is not set in the environment"));
        }
        if let Some(id) = inside.strip_prefix("input:") {
            return self.input(id).map_err(|e| format!("{place}: {e}"));
        }
        if let Some((kind, _)) = inside.split_once(':')
            && is_variable_name(kind)
            && !inside.contains(":-")
        {
            return Err(format!(
                "{place}: ${{{inside}}} is filled by the client itself ({kind}:), which mcpick cannot do; write the value or an ${{env:VAR}}"
            ));
        }
        let (name, default) = match inside.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inside, None),
        };
        if !is_variable_name(name) {
            return Err(format!(
                "{place}: ${{{inside}}} is not a variable mcpick knows"
            ));
        }
        match (self.variable(name), default) {
            (Some(value), _) => Ok(value.to_string()),
            (None, Some(default)) => Ok(default.to_string()),
            (None, None) => Err(format!(
                "{place}: ${{{name}}} is not set in the environment"
            )),
        }
    }
}

/// The variable an input's value comes from by default: `MCPICK_INPUT_` and the id upper-cased,
/// any character but a letter or digit as `_`.
pub fn input_variable(id: &str) -> String {
    let id: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("MCPICK_INPUT_{id}")
}

fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment() -> Environment {
        Environment::from_pairs(
            [
                ("TOKEN".to_string(), "t0k".to_string()),
                ("MCPICK_INPUT_PERPLEXITY_KEY".to_string(), "pk".to_string()),
                ("OTHER".to_string(), "other".to_string()),
            ],
            &[("named".to_string(), "OTHER".to_string())],
            PathBuf::from("/work/project"),
        )
    }

    #[test]
    fn each_client_s_variables_are_filled() {
        let env = environment();
        assert_eq!(env.expand("Bearer ${TOKEN}", "h").unwrap(), "Bearer t0k");
        assert_eq!(env.expand("${env:TOKEN}/x", "h").unwrap(), "t0k/x");
        assert_eq!(env.expand("${MISSING:-dflt}", "h").unwrap(), "dflt");
        assert_eq!(env.expand("${input:perplexity-key}", "h").unwrap(), "pk");
        assert_eq!(env.expand("${input:named}", "h").unwrap(), "other");
        assert_eq!(
            env.expand("${workspaceFolder}/data", "h").unwrap(),
            "/work/project/data"
        );
        assert_eq!(env.expand("no variables", "h").unwrap(), "no variables");
    }

    #[test]
    fn what_cannot_be_filled_is_named() {
        let env = environment();
        let missing = env.expand("${NOPE}", "mcpServers.a.env.X").unwrap_err();
        assert!(
            missing.contains("mcpServers.a.env.X") && missing.contains("${NOPE}"),
            "{missing}"
        );
        let input = env.expand("${input:api-key}", "p").unwrap_err();
        assert!(input.contains("MCPICK_INPUT_API_KEY"), "{input}");
        assert!(
            env.expand("${command:pick}", "p")
                .unwrap_err()
                .contains("client itself")
        );
        assert!(
            env.expand("${unclosed", "p")
                .unwrap_err()
                .contains("closing")
        );
        assert_eq!(
            input_variable("perplexity-key"),
            "MCPICK_INPUT_PERPLEXITY_KEY"
        );
    }
}
