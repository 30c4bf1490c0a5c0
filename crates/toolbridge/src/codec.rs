//! How a format is read and written: the function tables each format module
//! fills in (`CODEC`) and the registry holds.

use std::fmt;

use serde_json::Value;

use crate::error::Result;
use crate::json::Node;
use crate::note::{Converted, Notes};
use crate::options::{ReadOptions, WriteOptions};
use crate::tool::Tool;

/// How a format is read and written.
pub(crate) enum Codec {
    /// A JSON format: tools are entries in a JSON document.
    Json(JsonCodec),
    /// A source-text format (Emacs Lisp, R).
    Text(TextCodec),
}

impl fmt::Debug for Codec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Codec::Json(_) => f.write_str("Json"),
            Codec::Text(_) => f.write_str("Text"),
        }
    }
}

/// Each tool of a document, read or failed on its own.
pub(crate) type ReadTools = Vec<Result<Converted<Tool>>>;

/// The functions of a source-text format.
pub(crate) struct TextCodec {
    /// Does this text look like this format? (Called only for input that is
    /// not JSON.)
    pub detect: fn(&str) -> bool,
    /// Reads every tool in the text; an error for the whole text (a syntax
    /// error outside any tool) fails the read, an error inside one tool's form
    /// fails that tool only.
    pub read: fn(&str, &ReadOptions) -> Result<ReadTools>,
    /// Writes one tool.
    pub write: fn(&Tool, &WriteOptions, &mut Notes) -> Result<String>,
    /// Joins written tools into one document.
    pub join: fn(Vec<String>) -> String,
}

/// Turns a container entry into the tool entries it holds (see [`JsonCodec::expand`]).
pub(crate) type Expand = for<'a> fn(Node<'a>, &mut Notes) -> Option<Result<Vec<Node<'a>>>>;

/// The functions of a JSON format.
pub(crate) struct JsonCodec {
    /// Does this entry (one element of a tool list) look like this format?
    /// `None` for formats that are never guessed (they share another's shape).
    pub detect: Option<fn(&Value) -> bool>,
    /// Turns a container entry into the tool entries it holds (Gemini's
    /// `{"functionDeclarations": [...]}`), noting entries it skips (Bedrock's
    /// `cachePoint`) in the document's notes; `None` when entries are tools.
    pub expand: Option<Expand>,
    /// Reads one tool entry.
    pub read: fn(Node<'_>, &ReadOptions, &mut Notes) -> Result<Tool>,
    /// Writes one tool entry.
    pub write: fn(&Tool, &WriteOptions, &mut Notes) -> Result<Value>,
    /// Puts written entries into the list a request's `tools` field holds.
    pub wrap: fn(Vec<Value>) -> Value,
    /// Checks limits that apply to a whole set of written entries.
    pub check_set: Option<fn(&[Value], &WriteOptions, &mut Notes)>,
}
