//! The protocol's bottom layer: JSON-RPC frames as bytes in and out, with the error codes and
//! encoders (`jsonrpc`); the revisions spoken and the vocabulary they define — `_meta` keys, error
//! codes, logging levels, telling a stateless request from a session's (`revision`); the
//! notifications a server sends (`notifications`) and the messages of a listen's stream (`listen`).
//! Nothing here holds state or answers a method.

pub mod jsonrpc;
pub mod listen;
pub mod notifications;
pub mod revision;
