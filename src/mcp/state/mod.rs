//! What a server holds between messages: the server every connection shares (`server`: who it is,
//! the tools served and their reloads, the request-state key, the members stateless results carry),
//! one connection's session (`session`), the served tool snapshot with its pre-serialised listing
//! (`served`), the signed `requestState` of a multi-round call (`request_state`) and the hidden
//! catalogue of a `search-tool` server (`tool_search`). No method names: what each method does is
//! `methods`'.

pub mod request_state;
pub mod served;
pub mod server;
pub mod session;
pub mod tool_search;
