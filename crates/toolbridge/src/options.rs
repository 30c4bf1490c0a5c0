//! What a read or a write is asked to do: the [`Format`] (its identity
//! only; the table of what each format is and does is in the registry), the
//! options, and the shapes of input and output.
//!
//! This is a leaf: it names formats without knowing any of them, so the
//! error type and every format module can import it.

use serde_json::Value;

use crate::limits::Limits;
use crate::tool::Tool;

/// A tool definition format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// The canonical toolbridge tool file.
    Toolbridge,
    /// OpenAI Chat Completions `{"type": "function", "function": {…}}`.
    OpenAi,
    /// OpenAI Responses API flat function tool (strict by default).
    OpenAiResponses,
    /// Anthropic Messages `{name, description, input_schema}`.
    Anthropic,
    /// Gemini `functionDeclarations` with the OpenAPI-subset `parameters`.
    Gemini,
    /// Gemini `functionDeclarations` with `parametersJsonSchema`.
    GeminiJson,
    /// AWS Bedrock Converse `{"toolSpec": {…}}` (`toolConfig.tools`).
    Bedrock,
    /// Model Context Protocol `Tool`, a list, or a `tools/list` result.
    Mcp,
    /// Ollama `/api/chat` `tools[]` entries (OpenAI Chat shape).
    Ollama,
    /// Mistral `tools[]` entries (OpenAI Chat shape).
    Mistral,
    /// Cohere v2 `tools[]` entries (OpenAI Chat shape).
    Cohere,
    /// Emacs Lisp `(gptel-make-tool …)` forms.
    Gptel,
    /// Emacs Lisp `(llm-make-tool …)` forms (llm.el).
    Llm,
    /// R source with ellmer `tool()` definitions.
    Ellmer,
    /// Syllable `ToolDefinition` (action, endpoint, context and log tools).
    Syllable,
    /// SkyDeck "JSON format for LLM tools": a prompt template with variables.
    Skydeck,
}

impl Format {
    /// Every format, in the order `toolbridge formats` lists them and
    /// detection tries them.
    pub const ALL: [Format; 16] = [
        Format::Toolbridge,
        Format::OpenAi,
        Format::OpenAiResponses,
        Format::Anthropic,
        Format::Gemini,
        Format::GeminiJson,
        Format::Bedrock,
        Format::Mcp,
        Format::Ollama,
        Format::Mistral,
        Format::Cohere,
        Format::Gptel,
        Format::Llm,
        Format::Ellmer,
        Format::Syllable,
        Format::Skydeck,
    ];

    /// The id used on the command line (`openai-responses`).
    pub fn id(self) -> &'static str {
        match self {
            Format::Toolbridge => "toolbridge",
            Format::OpenAi => "openai",
            Format::OpenAiResponses => "openai-responses",
            Format::Anthropic => "anthropic",
            Format::Gemini => "gemini",
            Format::GeminiJson => "gemini-json",
            Format::Bedrock => "bedrock",
            Format::Mcp => "mcp",
            Format::Ollama => "ollama",
            Format::Mistral => "mistral",
            Format::Cohere => "cohere",
            Format::Gptel => "gptel",
            Format::Llm => "llm",
            Format::Ellmer => "ellmer",
            Format::Syllable => "syllable",
            Format::Skydeck => "skydeck",
        }
    }

    /// Every format, in table order.
    pub fn all() -> impl Iterator<Item = Format> {
        Format::ALL.into_iter()
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Options for reading.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct ReadOptions {
    /// The format to read; detected from the document's shape when `None`.
    pub from: Option<Format>,
    /// Size and depth bounds.
    pub limits: Limits,
    /// The input's name (usually a file name), used in errors.
    pub origin: Option<String>,
}

impl ReadOptions {
    /// Reads as `format` instead of detecting it.
    pub fn with_from(mut self, format: Format) -> ReadOptions {
        self.from = Some(format);
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> ReadOptions {
        self.limits = limits;
        self
    }

    /// Names the input in errors.
    pub fn with_origin(mut self, origin: impl Into<String>) -> ReadOptions {
        self.origin = Some(origin.into());
        self
    }
}

/// Options for writing.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct WriteOptions {
    /// Ask for the target's strict mode for every tool (a tool's own
    /// `strict: true` asks for it too).
    pub strict: bool,
    /// Fill absent MCP annotation hints with MCP's defaults.
    pub annotation_defaults: bool,
    /// Bounds on `$ref` expansion and nesting.
    pub limits: Limits,
    /// [`convert`](crate::convert) writes the target's list even for a
    /// document that held one tool entry, so that scripts need not depend
    /// on the count.
    pub list: bool,
}

impl WriteOptions {
    /// Sets [`WriteOptions::strict`].
    pub fn with_strict(mut self, strict: bool) -> WriteOptions {
        self.strict = strict;
        self
    }

    /// Sets [`WriteOptions::annotation_defaults`].
    pub fn with_annotation_defaults(mut self, annotation_defaults: bool) -> WriteOptions {
        self.annotation_defaults = annotation_defaults;
        self
    }

    /// Sets [`WriteOptions::list`].
    pub fn with_list(mut self, list: bool) -> WriteOptions {
        self.list = list;
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> WriteOptions {
        self.limits = limits;
        self
    }

    /// Strict mode for this tool: asked for by the options or by the tool.
    pub(crate) fn strict_for(&self, tool: &Tool) -> bool {
        self.strict || tool.strict == Some(true)
    }
}

/// Whether a document held one tool or a list of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A single tool entry.
    Single,
    /// A list, a request body or a tools/list result.
    List,
}

/// The output of a writer.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// A JSON document.
    Json(Value),
    /// Source text (Emacs Lisp, R).
    Text(String),
}

impl Output {
    /// The output as text: JSON pretty-printed with a final newline.
    pub fn to_text(&self) -> String {
        match self {
            Output::Json(value) => {
                let mut text = serde_json::to_string_pretty(value).expect("JSON values always serialize");
                text.push('\n');
                text
            }
            Output::Text(text) => text.clone(),
        }
    }

    /// The JSON value, if this is a JSON output.
    pub fn as_json(&self) -> Option<&Value> {
        match self {
            Output::Json(value) => Some(value),
            Output::Text(_) => None,
        }
    }
}
