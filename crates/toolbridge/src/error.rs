//! The error type: "no output could be produced".
//!
//! A conversion that can produce output but has to change or leave out
//! something does not fail; it returns [`Note`](crate::Note)s instead.

use std::fmt;

use crate::options::Format;
use crate::pointer::Pointer;

/// A `Result` whose error is [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What kind of problem stopped a read or a write.
///
/// Each kind has one fixed phrase, the start of the error's message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input is not JSON (or not the JSON-based text a format needs).
    InvalidJson,
    /// The document holds no tool definition in any shape this format knows.
    NotATool,
    /// A tool definition is malformed: a field is missing or of the wrong type.
    InvalidTool,
    /// A format id is not one of [`FORMATS`](crate::registry::FORMATS).
    UnknownFormat,
    /// The document's shape fits several formats equally well.
    AmbiguousFormat,
    /// A tool's JSON Schema is not a valid schema, or not one a tool can use.
    InvalidSchema,
    /// A `$ref` refers back to itself where it would have to be expanded.
    RefCycle,
    /// A `$ref` points at nothing, or outside the document.
    UnresolvedRef,
    /// The input is larger or deeper than the configured [`Limits`](crate::Limits).
    LimitExceeded,
    /// Emacs Lisp source could not be read.
    LispSyntax,
    /// R source could not be read.
    RSyntax,
    /// The tool cannot be expressed in the target format at all.
    Unrepresentable,
    /// A provider's response or stream event is malformed: not the shape
    /// its API sends (a field missing or of the wrong type, a stream event
    /// that is not JSON).
    InvalidResponse,
    /// The provider reported an error inside a response or a stream.
    ProviderError,
}

impl ErrorKind {
    /// The fixed phrase that starts every message of this kind.
    pub fn phrase(self) -> &'static str {
        match self {
            ErrorKind::InvalidJson => "invalid JSON",
            ErrorKind::NotATool => "not a tool definition",
            ErrorKind::InvalidTool => "invalid tool",
            ErrorKind::UnknownFormat => "unknown format",
            ErrorKind::AmbiguousFormat => "ambiguous format",
            ErrorKind::InvalidSchema => "invalid schema",
            ErrorKind::RefCycle => "$ref cycle",
            ErrorKind::UnresolvedRef => "unresolved $ref",
            ErrorKind::LimitExceeded => "limit exceeded",
            ErrorKind::LispSyntax => "Emacs Lisp syntax error",
            ErrorKind::RSyntax => "R syntax error",
            ErrorKind::Unrepresentable => "cannot be written",
            ErrorKind::InvalidResponse => "invalid response",
            ErrorKind::ProviderError => "provider error",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.phrase())
    }
}

/// An error naming the problem and the place in the input where it was found.
///
/// ```
/// use toolbridge::{Error, ErrorKind, Pointer};
/// let err = Error::new(ErrorKind::InvalidTool, "\"name\" must be a string")
///     .at(Pointer::root().key("tools").index(0).key("name"));
/// assert_eq!(err.to_string(), "invalid tool: \"name\" must be a string (at /tools/0/name)");
/// ```
#[derive(Clone)]
pub struct Error {
    repr: Box<Repr>,
}

#[derive(Clone)]
struct Repr {
    kind: ErrorKind,
    detail: String,
    at: Pointer,
    position: Option<(usize, usize)>,
    origin: Option<String>,
    tool: Option<String>,
    format: Option<Format>,
    source: Option<std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>>,
}

impl Error {
    /// A new error of `kind` with a sentence saying what is wrong.
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error {
            repr: Box::new(Repr {
                kind,
                detail: detail.into(),
                at: Pointer::root(),
                position: None,
                origin: None,
                tool: None,
                format: None,
                source: None,
            }),
        }
    }

    /// Sets the JSON Pointer of the place the error is about.
    pub fn at(mut self, at: Pointer) -> Error {
        self.repr.at = at;
        self
    }

    /// Sets the 1-based line and column in a text input.
    pub fn with_position(mut self, line: usize, column: usize) -> Error {
        self.repr.position = Some((line, column));
        self
    }

    /// Sets the name of the input (usually a file name) the error was found in.
    pub fn with_origin(mut self, origin: impl Into<String>) -> Error {
        self.repr.origin = Some(origin.into());
        self
    }

    /// Names the tool the error is about (the name a failed entry gives
    /// itself, when it has one).
    pub fn with_tool(mut self, name: impl Into<String>) -> Error {
        self.repr.tool = Some(name.into());
        self
    }

    /// Sets the format that was being read or written.
    pub fn with_format(mut self, format: Format) -> Error {
        self.repr.format = Some(format);
        self
    }

    /// Attaches the lower-level error that caused this one.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Error {
        self.repr.source = Some(std::sync::Arc::new(source));
        self
    }

    /// The kind of problem.
    pub fn kind(&self) -> ErrorKind {
        self.repr.kind
    }

    /// The sentence after the kind's phrase.
    pub fn detail(&self) -> &str {
        &self.repr.detail
    }

    /// Where in the input the problem is (the root pointer if not known).
    pub fn pointer(&self) -> &Pointer {
        &self.repr.at
    }

    /// The 1-based line and column in a text input, if known.
    pub fn position(&self) -> Option<(usize, usize)> {
        self.repr.position
    }

    /// The name of the input, if one was given.
    pub fn origin(&self) -> Option<&str> {
        self.repr.origin.as_deref()
    }

    /// The name of the tool the error is about, if known.
    pub fn tool(&self) -> Option<&str> {
        self.repr.tool.as_deref()
    }

    /// The format being read or written, if known.
    pub fn format(&self) -> Option<Format> {
        self.repr.format
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let repr = &self.repr;
        write!(f, "{}", repr.kind.phrase())?;
        if !repr.detail.is_empty() {
            write!(f, ": {}", repr.detail)?;
        }
        let mut places = Vec::new();
        if !repr.at.is_root() {
            places.push(format!("at {}", repr.at));
        }
        if let Some(tool) = &repr.tool {
            places.push(format!("tool {tool:?}"));
        }
        match (&repr.origin, repr.position) {
            (Some(origin), Some((line, column))) => places.push(format!("{origin}:{line}:{column}")),
            (None, Some((line, column))) => places.push(format!("line {line}, column {column}")),
            (Some(origin), None) => places.push(origin.clone()),
            (None, None) => {}
        }
        if !places.is_empty() {
            write!(f, " ({})", places.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.repr.kind)
            .field("detail", &self.repr.detail)
            .field("at", &self.repr.at)
            .field("position", &self.repr.position)
            .field("origin", &self.repr.origin)
            .field("tool", &self.repr.tool)
            .field("format", &self.repr.format)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.repr
            .source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Error {
        let detail = json_error_detail(&err);
        let error = Error::new(ErrorKind::InvalidJson, detail);
        if err.line() > 0 {
            error.with_position(err.line(), err.column())
        } else {
            error
        }
    }
}

/// serde_json's message without its trailing " at line L column C", which we
/// render ourselves from the structured position.
fn json_error_detail(err: &serde_json::Error) -> String {
    let text = err.to_string();
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&suffix).unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_carry_position_once() {
        let err: Error = serde_json::from_str::<serde_json::Value>("{\"a\": }")
            .unwrap_err()
            .into();
        assert_eq!(err.kind(), ErrorKind::InvalidJson);
        assert_eq!(err.position(), Some((1, 7)));
        assert_eq!(
            err.with_origin("t.json").to_string(),
            "invalid JSON: expected value (t.json:1:7)"
        );
    }
}
