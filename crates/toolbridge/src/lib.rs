//! # toolbridge
//!
//! Define an LLM tool once; use it with every model provider, every agent
//! stack and every MCP client.
//!
//! toolbridge reads a tool definition in any supported [format](FORMATS) into
//! one canonical [`Tool`], and writes it out in any other, lowering its JSON
//! Schema to the target's dialect. Nothing is lost silently: every change a
//! writer has to make comes back as a [`Note`] with a JSON Pointer to the place.
//!
//! ```
//! use toolbridge::{Format, ReadOptions, WriteOptions};
//!
//! let read = toolbridge::read(r#"{
//!     "name": "get_weather",
//!     "description": "Current weather for a city",
//!     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
//!     "annotations": {"readOnlyHint": true}
//! }"#, &ReadOptions::default())?;
//! let tools = read.into_tools();
//! let written = toolbridge::write(&tools, Format::Mcp, &WriteOptions::default());
//! assert!(written.is_complete());
//! # Ok::<(), toolbridge::Error>(())
//! ```
//!
//! The library is sans-IO: it parses, converts and checks; it never touches
//! the network, the file system or an async runtime.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

// The layers, lowest first; a module imports only from modules above it in
// this list (`scripts/layers` checks it in CI).
mod limits;
mod pointer;
mod suggest;
pub mod tool;
mod options;
mod note;
mod error;
mod json;
pub mod schema;
mod codec;
mod format;
mod registry;
mod pipeline;

pub use error::{Error, ErrorKind, Result};
pub use limits::Limits;
pub use note::{Converted, Level, Note, NoteKind, Notes};
pub use options::{Format, Output, ReadOptions, Shape, WriteOptions};
pub use pipeline::{read, read_value, write, write_tool, Read, Written, WrittenTool};
pub use pointer::Pointer;
pub use registry::{FormatInfo, FORMATS};
pub use tool::{Annotations, Tool, ToolSet};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
