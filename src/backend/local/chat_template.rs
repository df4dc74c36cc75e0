//! A GGUF model's own chat template (the Jinja source in its `tokenizer.chat_template` metadata)
//! rendered the way Hugging Face's `apply_chat_template` does — `trim_blocks` and `lstrip_blocks`,
//! loop controls, Python's string and dict methods, `raise_exception`, and a `tojson` that writes
//! what Python's `json.dumps` writes (`", "` and `": "` separators, no HTML escaping) — so the model
//! sees its tools in exactly the text llama-server, Ollama or vLLM would give it. Messages and tools
//! are OpenAI-shaped JSON, as those servers pass them to templates.

use minijinja::value::{Kwargs, Serde, Value as JinjaValue};
use minijinja::{Environment, Error, ErrorKind};
use serde::Serialize;
use serde_json::{Value, json};

pub struct ChatTemplate {
    env: Environment<'static>,
    bos_token: String,
    eos_token: String,
}

impl std::fmt::Debug for ChatTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTemplate").finish_non_exhaustive()
    }
}

const TEMPLATE_NAME: &str = "chat";

impl ChatTemplate {
    /// Compiles `source`; `bos_token` and `eos_token` are the texts the template may print.
    pub fn new(source: &str, bos_token: &str, eos_token: &str) -> Result<ChatTemplate, String> {
        let mut env = Environment::new();
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .trim_blocks(true)
                .lstrip_blocks(true)
                .build()
                .map_err(|e| e.to_string())?,
        );
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_filter("tojson", python_tojson);
        env.add_function("raise_exception", |message: String| -> Result<(), Error> {
            Err(Error::new(ErrorKind::InvalidOperation, message))
        });
        // A fixed date: a template that prints today's date must not make two runs differ.
        env.add_function("strftime_now", |_format: String| "01 Jan 2026".to_string());
        env.add_template_owned(TEMPLATE_NAME.to_string(), source.to_string())
            .map_err(|e| format!("the chat template does not compile: {e}"))?;
        Ok(ChatTemplate {
            env,
            bos_token: bos_token.to_string(),
            eos_token: eos_token.to_string(),
        })
    }

    /// The prompt text for `messages` (OpenAI-shaped) with `tools` (OpenAI function tools), ending
    /// with the opening of the assistant's turn when `add_generation_prompt`.
    pub fn render(
        &self,
        messages: &[Value],
        tools: Option<&[Value]>,
        add_generation_prompt: bool,
    ) -> Result<String, String> {
        let context = json!({
            "messages": messages,
            "tools": tools,
            "add_generation_prompt": add_generation_prompt,
            "bos_token": self.bos_token,
            "eos_token": self.eos_token,
        });
        self.env
            .get_template(TEMPLATE_NAME)
            .and_then(|t| t.render(JinjaValue::from(Serde(&context))))
            .map_err(|e| format!("the chat template failed: {e}"))
    }
}

/// `tojson` as Hugging Face defines it for chat templates: `json.dumps(x, ensure_ascii=False,
/// indent=indent)`.
fn python_tojson(value: &JinjaValue, kwargs: Kwargs) -> Result<JinjaValue, Error> {
    let indent: Option<usize> = kwargs.get("indent")?;
    kwargs.assert_all_used()?;
    let value = serde_json::to_value(value)
        .map_err(|e| Error::new(ErrorKind::InvalidOperation, format!("tojson: {e}")))?;
    Ok(JinjaValue::from_safe_string(python_json(&value, indent)))
}

/// JSON as Python's `json.dumps` writes it (keys in their order, non-ASCII kept).
pub fn python_json(value: &Value, indent: Option<usize>) -> String {
    let mut out = Vec::new();
    let formatter = PythonFormatter {
        indent: indent.map(|n| " ".repeat(n).into_bytes()),
        depth: 0,
        filled: Vec::new(),
    };
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
    // Serialising a JSON value into memory cannot fail.
    let _ = value.serialize(&mut serializer);
    String::from_utf8(out).unwrap_or_default()
}

struct PythonFormatter {
    indent: Option<Vec<u8>>,
    depth: usize,
    /// Per open container, whether it has items: Python closes a filled
    /// container on its own line but writes an empty one as `[]` / `{}`.
    filled: Vec<bool>,
}

impl PythonFormatter {
    fn newline<W: ?Sized + std::io::Write>(&self, writer: &mut W) -> std::io::Result<()> {
        if let Some(indent) = &self.indent {
            writer.write_all(b"\n")?;
            for _ in 0..self.depth {
                writer.write_all(indent)?;
            }
        }
        Ok(())
    }

    fn open<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth += 1;
        self.filled.push(false);
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        bracket: &[u8],
    ) -> std::io::Result<()> {
        self.depth -= 1;
        if self.filled.pop().unwrap_or(false) {
            self.newline(writer)?;
        }
        writer.write_all(bracket)
    }

    fn separator<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if let Some(filled) = self.filled.last_mut() {
            *filled = true;
        }
        match (&self.indent, first) {
            (None, true) => Ok(()),
            (None, false) => writer.write_all(b", "),
            (Some(_), first) => {
                if !first {
                    writer.write_all(b",")?;
                }
                self.newline(writer)
            }
        }
    }
}

impl serde_json::ser::Formatter for PythonFormatter {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.separator(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.separator(writer, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
    ) -> std::io::Result<()> {
        writer.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tojson_writes_what_python_json_dumps_writes() {
        let value = json!({"name": "get_weather", "n": [1, 2.5, true, null], "city": "Zürich <x> & 'y'", "e": {}});
        assert_eq!(
            python_json(&value, None),
            r#"{"name": "get_weather", "n": [1, 2.5, true, null], "city": "Zürich <x> & 'y'", "e": {}}"#
        );
        assert_eq!(
            python_json(&json!({"a": [1], "b": {}, "c": []}), Some(2)),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": {},\n  \"c\": []\n}"
        );
    }

    #[test]
    fn templates_render_with_hugging_face_whitespace_rules_and_python_methods() {
        let source = "{%- for message in messages %}\n    {{- message.role.upper() + ': ' + message.content.strip() }}\n{%- endfor %}\n{%- if tools %}{% for tool in tools %}[{{ tool | tojson }}]{% endfor %}{% endif %}";
        let template = ChatTemplate::new(source, "<s>", "</s>").unwrap();
        let text = template
            .render(
                &[json!({"role": "user", "content": "  hi  "})],
                Some(&[json!({"name": "t"})]),
                true,
            )
            .unwrap();
        assert_eq!(text, r#"USER: hi[{"name": "t"}]"#);
        let raising = ChatTemplate::new("{{ raise_exception('no system role') }}", "", "").unwrap();
        assert!(
            raising
                .render(&[], None, true)
                .unwrap_err()
                .contains("no system role")
        );
        assert!(ChatTemplate::new("{% if %}", "", "").is_err());
    }
}
