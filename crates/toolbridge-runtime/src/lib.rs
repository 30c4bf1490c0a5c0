//! Running toolbridge tools.
//!
//! The library crate `toolbridge` is sans-IO: it reads, writes and checks tools
//! and calls. This crate does the IO: Rust handlers written with `#[tool]`, the
//! dispatcher that runs a model turn's calls, the `run` kinds of tool files
//! (endpoint, command, prompt, context), and MCP serving and import (rmcp).

pub mod output;
pub mod run;
pub mod session;

pub mod dispatch;
pub mod handler;
pub mod mcp;
pub mod registry;

pub use dispatch::{ConfirmPolicy, ConfirmRequest, Decision, DispatchOptions, Dispatcher, Reply};
pub use handler::{Handler, RustTool};
pub use output::Output;
pub use registry::{Registry, RegistryError};
pub use toolbridge_macros::tool;

#[doc(hidden)]
pub use handler::private as __private;
