//! Gemini's `parameters` dialect, the OpenAPI 3.0 `Schema` subset, both
//! ways: `lower.rs` writes JSON Schema 2020-12 into it for the `gemini`
//! writer, `raise.rs` reads it back into JSON Schema for the reader.

mod lower;
mod raise;

pub(in crate::schema) use lower::Gemini;
pub(crate) use raise::{note_proto_name, raise};
