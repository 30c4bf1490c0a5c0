//! `#[tool]`: a Rust function becomes a toolbridge tool definition and a handler.
//!
//! Use it through `toolbridge_runtime::tool`.
