//! The transports: newline-delimited JSON on stdio and any byte-stream pair (`stdio`), the
//! in-memory pipe in-process trials use (`duplex`), and Streamable HTTP (`http`) for both revisions.
//! They move bytes and own the streams they keep open; every message goes to `methods`, and they
//! know no method by name.

pub mod duplex;
pub mod http;
pub mod stdio;
