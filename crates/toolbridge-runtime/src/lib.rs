//! Running toolbridge tools.
//!
//! The library crate `toolbridge` is sans-IO: it reads, writes and checks tools
//! and calls. This crate does the IO: Rust handlers written with `#[tool]`, the
//! dispatcher that runs a model turn's calls, the `run` kinds of tool files
//! (endpoint, command, prompt, context), and MCP serving and import (rmcp).

pub mod output;
pub mod run;
pub mod session;
