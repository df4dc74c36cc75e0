//! Why BFCL's checker rejects a reply: its `error_type` and first message, and the one kind mcpick
//! adds (`checker_exception`) for where Python would raise and BFCL's run would stop.

/// Why BFCL's checker rejects a reply: its `error_type` and its first error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFailure {
    pub error_type: String,
    pub error: String,
}

pub fn fail(error_type: &str, error: impl Into<String>) -> CheckFailure {
    CheckFailure {
        error_type: error_type.into(),
        error: error.into(),
    }
}

/// Where Python would raise (an unknown type name, a missing function, `int("x")`).
pub fn exception(what: impl Into<String>) -> CheckFailure {
    fail("checker_exception", what)
}
