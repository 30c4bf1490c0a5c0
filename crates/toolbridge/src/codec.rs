//! How a format is read and written: the function tables each format module
//! fills in (`CODEC`) and the registry holds.

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::Result;
use crate::json::{Entry, Node};
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
    /// Reads one tool entry, moved out of the document so the tool can keep
    /// its values without a copy.
    pub read: fn(Entry, &ReadOptions, &mut Notes) -> Result<Tool>,
    /// Writes one tool entry.
    pub write: fn(&Tool, &WriteOptions, &mut Notes) -> Result<Value>,
    /// Where written entries sit in the document a request's `tools` field
    /// holds.
    pub layout: Layout,
    /// Checks limits that apply to a whole set of written entries.
    pub check_set: Option<fn(&[&Value], &WriteOptions, &mut Notes)>,
}

/// Where a JSON format's written entries sit in the document it writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// A JSON array of the entries.
    List,
    /// `{"<key>": [entries]}` (an MCP `tools/list` result).
    Field(&'static str),
    /// `[{"<key>": [entries]}]`, or `[]` for none (Gemini's one tool object).
    InOneObject(&'static str),
    /// A single entry alone, any other number as a list (a SkyDeck avatar).
    OneOrList,
}

impl Layout {
    /// The document holding `entries`.
    pub fn wrap(self, mut entries: Vec<Value>) -> Value {
        match self {
            Layout::List => Value::Array(entries),
            Layout::Field(key) => Value::Object(Map::from_iter([(key.to_string(), Value::Array(entries))])),
            Layout::InOneObject(_) if entries.is_empty() => Value::Array(entries),
            Layout::InOneObject(key) => Value::Array(vec![Value::Object(Map::from_iter([(
                key.to_string(),
                Value::Array(entries),
            )]))]),
            Layout::OneOrList if entries.len() == 1 => entries.remove(0),
            Layout::OneOrList => Value::Array(entries),
        }
    }

    /// The text of [`Layout::wrap`]'s document (pretty, ending in a newline),
    /// written from borrowed entries: no entry is copied.
    pub fn to_text(self, entries: &[&Value]) -> String {
        let mut text =
            serde_json::to_string_pretty(&Wrapped(self, entries)).expect("JSON values always serialize");
        text.push('\n');
        text
    }
}

/// Borrowed entries serialised in a [`Layout`].
struct Wrapped<'a>(Layout, &'a [&'a Value]);

impl Serialize for Wrapped<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let Wrapped(layout, entries) = *self;
        match layout {
            Layout::List => serializer.collect_seq(entries),
            Layout::Field(key) => serializer.collect_map([(key, entries)]),
            Layout::InOneObject(_) if entries.is_empty() => serializer.collect_seq(entries),
            Layout::InOneObject(key) => serializer.collect_seq([Wrapped(Layout::Field(key), entries)]),
            Layout::OneOrList if entries.len() == 1 => entries[0].serialize(serializer),
            Layout::OneOrList => serializer.collect_seq(entries),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::Output;
    use serde_json::json;

    #[test]
    fn borrowed_text_equals_the_wrapped_document() {
        let layouts = [
            Layout::List,
            Layout::Field("tools"),
            Layout::InOneObject("functionDeclarations"),
            Layout::OneOrList,
        ];
        for layout in layouts {
            for count in 0..3 {
                let entries: Vec<Value> = (0..count)
                    .map(|i| json!({"name": format!("t{i}"), "n": [i]}))
                    .collect();
                let borrowed: Vec<&Value> = entries.iter().collect();
                let expected = Output::Json(layout.wrap(entries.clone())).to_text();
                assert_eq!(layout.to_text(&borrowed), expected, "{layout:?} with {count}");
            }
        }
        assert_eq!(
            Layout::InOneObject("functionDeclarations").wrap(vec![json!({"name": "a"})]),
            json!([{"functionDeclarations": [{"name": "a"}]}])
        );
        assert_eq!(Layout::Field("tools").wrap(Vec::new()), json!({"tools": []}));
    }
}
