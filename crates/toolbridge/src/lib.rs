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
//! let input = r#"{"name": "get_weather", "title": "Get weather",
//!     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}"#;
//! let converted = toolbridge::convert(input, toolbridge::Format::Gemini, &Default::default())?;
//! assert!(converted.text.contains(r#""type": "OBJECT""#));
//! let lines: Vec<String> = converted.findings.iter().map(|finding| finding.to_string()).collect();
//! assert_eq!(lines, [
//!     "get_weather: gemini: info: type names were written in uppercase (\"OBJECT\", \"STRING\", …), \
//!      Gemini's spelling (at /inputSchema)",
//!     "get_weather: gemini: loss: gemini has no place for \"title\" (at /title)",
//! ]);
//! # Ok::<(), toolbridge::Error>(())
//! ```
//!
//! [`lint`] does the same for every target at once; [`read`] and [`write()`]
//! are the two halves. Each written tool carries an [`Inverse`]: what turns
//! a call the model makes against it back into a call of the canonical tool.
//! A [`Toolbox`] checks those calls: it resolves the name, undoes the
//! rewrites, applies the tool's defaults, coerces and validates, and answers
//! with an [`Accepted`] call or a [`Rejection`] written for the model.
//!
//! The library is sans-IO: it parses, converts and checks; it never touches
//! the network, the file system or an async runtime.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

// The layers, lowest first; a module imports only from modules above it in
// this list (`tests/layers.rs` checks it).
mod limits;
mod pointer;
mod rewrite;
mod suggest;
pub mod tool;
mod options;
mod note;
mod error;
mod json;
pub mod call;
pub mod schema;
mod codec;
mod format;
pub mod text;
mod registry;
mod pipeline;
mod check;

pub use check::{elisp_value, Accepted, CheckOptions, Checked, ElispDecoding, Rejection, Toolbox, Violation};
pub use error::{Error, ErrorKind, Result};
pub use format::elisp::defun::read_defuns;
pub use limits::Limits;
pub use note::{Converted, Level, Note, NoteKind, Notes, SharedNotes, SharedStr};
pub use options::{Format, Output, ReadOptions, Shape, WriteOptions};
pub use pipeline::{
    convert, convert_read, keep_only, lint, lint_read, read, read_value, write, write_tool, Conversion,
    Finding, Found, Options, Place, Read, Report, Written, WrittenTool,
};
pub use pointer::Pointer;
pub use registry::{FormatInfo, FORMATS};
pub use rewrite::{Inverse, Rewrite, Unrestored};
pub use tool::{Annotations, Tool};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeExamples;
