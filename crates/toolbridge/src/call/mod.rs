//! Calls coming back, provider-neutral: the one shape of a tool call, the
//! stream events, the SSE/NDJSON framer, the incremental partial-JSON parser
//! and argument repair. Each provider's own call, stream and result shapes
//! live with its format module and build on these.

mod partial;

pub use partial::{Change, PartialJson};
