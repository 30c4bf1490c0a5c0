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

mod check;
mod error;
pub mod format;
mod limits;
mod note;
mod pointer;
pub mod schema;
pub mod tool;

pub use error::{Error, ErrorKind, Result};
pub use format::{
    read, read_value, write, write_tool, Format, FormatInfo, Output, Read, ReadOptions, Shape, WriteOptions,
    Written, WrittenTool, FORMATS,
};
pub use limits::Limits;
pub use note::{Converted, Level, Note, NoteKind, Notes};
pub use pointer::Pointer;
pub use tool::{Annotations, Tool, ToolSet};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
