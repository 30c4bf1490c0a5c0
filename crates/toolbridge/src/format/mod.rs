//! Formats: one module per format, its reader and writer side by side.
//!
//! [`FORMATS`] is the one table of formats: ids and aliases for `--from` and
//! `--to`, the `toolbridge formats` listing, detection and the README table
//! all come from it.

mod node;
mod r;
mod shared;

mod anthropic;
mod bedrock;
mod cohere;
mod ellmer;
mod gemini;
mod gemini_json;
mod gptel;
mod llm;
mod mcp;
mod mistral;
mod ollama;
mod openai;
mod openai_responses;
mod sexp;
mod skydeck;
mod syllable;
mod toolbridge;

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

use crate::check::suggest::closest;
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::note::{Converted, Note, NoteKind, Notes};
use crate::pointer::Pointer;
use crate::schema::names::{NameMap, NameRule};
use crate::tool::Tool;

pub(crate) use node::Node;

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

/// What the table knows about a format.
#[derive(Debug)]
#[non_exhaustive]
pub struct FormatInfo {
    /// The format.
    pub format: Format,
    /// The id used on the command line (`openai-responses`).
    pub id: &'static str,
    /// Other accepted spellings.
    pub aliases: &'static [&'static str],
    /// One line saying what the format is.
    pub summary: &'static str,
    /// The usual file extension of a document in this format.
    pub extension: &'static str,
    /// Tool-name rule of the target, if it has one.
    pub name_rule: Option<NameRule>,
    /// A format whose entries look exactly like this one's, so that a
    /// document in this format is detected as that one (Ollama → OpenAI).
    pub same_shape_as: Option<Format>,
    pub(crate) codec: Codec,
}

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

/// Every format, in the order `toolbridge formats` lists them and detection
/// tries them.
pub static FORMATS: &[FormatInfo] = &[
    FormatInfo {
        format: Format::Toolbridge,
        id: "toolbridge",
        aliases: &["canonical"],
        summary: "the canonical tool file: a superset of the MCP Tool object",
        extension: "json",
        name_rule: None,
        same_shape_as: None,
        codec: Codec::Json(toolbridge::CODEC),
    },
    FormatInfo {
        format: Format::OpenAi,
        id: "openai",
        aliases: &["openai-chat", "chat-completions", "openai-chat-completions"],
        summary: "OpenAI Chat Completions tools[] entry {type: \"function\", function: {...}}",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: None,
        codec: Codec::Json(openai::CODEC),
    },
    FormatInfo {
        format: Format::OpenAiResponses,
        id: "openai-responses",
        aliases: &["responses", "openai-response"],
        summary: "OpenAI Responses API flat function tool (strict by default)",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: None,
        codec: Codec::Json(openai_responses::CODEC),
    },
    FormatInfo {
        format: Format::Anthropic,
        id: "anthropic",
        aliases: &["claude", "anthropic-messages"],
        summary: "Anthropic Messages tools[] entry {name, description, input_schema}",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: None,
        codec: Codec::Json(anthropic::CODEC),
    },
    FormatInfo {
        format: Format::Gemini,
        id: "gemini",
        aliases: &["google", "vertex", "gemini-openapi"],
        summary: "Gemini functionDeclarations with the OpenAPI-subset parameters",
        extension: "json",
        name_rule: Some(NameRule::GEMINI),
        same_shape_as: None,
        codec: Codec::Json(gemini::CODEC),
    },
    FormatInfo {
        format: Format::GeminiJson,
        id: "gemini-json",
        aliases: &["gemini-jsonschema", "vertex-json"],
        summary: "Gemini functionDeclarations with parametersJsonSchema",
        extension: "json",
        name_rule: Some(NameRule::GEMINI),
        same_shape_as: None,
        codec: Codec::Json(gemini_json::CODEC),
    },
    FormatInfo {
        format: Format::Bedrock,
        id: "bedrock",
        aliases: &["aws-bedrock", "converse", "bedrock-converse"],
        summary: "AWS Bedrock Converse toolConfig.tools[] entry {toolSpec: {...}}",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: None,
        codec: Codec::Json(bedrock::CODEC),
    },
    FormatInfo {
        format: Format::Mcp,
        id: "mcp",
        aliases: &["model-context-protocol"],
        summary: "MCP Tool, a list of them, or a tools/list result",
        extension: "json",
        name_rule: Some(NameRule::MCP),
        same_shape_as: None,
        codec: Codec::Json(mcp::CODEC),
    },
    FormatInfo {
        format: Format::Ollama,
        id: "ollama",
        aliases: &["ollama-chat"],
        summary: "Ollama /api/chat tools[] entry (OpenAI Chat shape)",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: Some(Format::OpenAi),
        codec: Codec::Json(ollama::CODEC),
    },
    FormatInfo {
        format: Format::Mistral,
        id: "mistral",
        aliases: &["mistralai"],
        summary: "Mistral tools[] entry (OpenAI Chat shape, parameters required)",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: Some(Format::OpenAi),
        codec: Codec::Json(mistral::CODEC),
    },
    FormatInfo {
        format: Format::Cohere,
        id: "cohere",
        aliases: &["cohere-v2"],
        summary: "Cohere v2 tools[] entry (OpenAI Chat shape, parameters required)",
        extension: "json",
        name_rule: Some(NameRule::COHERE),
        same_shape_as: Some(Format::OpenAi),
        codec: Codec::Json(cohere::CODEC),
    },
    FormatInfo {
        format: Format::Gptel,
        id: "gptel",
        aliases: &[],
        summary: "Emacs Lisp (gptel-make-tool ...) forms for gptel",
        extension: "el",
        name_rule: None,
        same_shape_as: None,
        codec: Codec::Text(gptel::CODEC),
    },
    FormatInfo {
        format: Format::Llm,
        id: "llm",
        aliases: &["llm.el"],
        summary: "Emacs Lisp (llm-make-tool ...) forms for llm.el",
        extension: "el",
        name_rule: None,
        same_shape_as: None,
        codec: Codec::Text(llm::CODEC),
    },
    FormatInfo {
        format: Format::Ellmer,
        id: "ellmer",
        aliases: &["r"],
        summary: "R ellmer tool() calls with type_*() arguments and tool_annotations()",
        extension: "R",
        name_rule: Some(ellmer::NAME_RULE),
        same_shape_as: None,
        codec: Codec::Text(ellmer::CODEC),
    },
    FormatInfo {
        format: Format::Syllable,
        id: "syllable",
        aliases: &["syllable-tool", "tooldefinition"],
        summary: "Syllable ToolDefinition {type, tool: {function: {...}}, endpoint, defaults, ...}",
        extension: "json",
        name_rule: Some(NameRule::OPENAI),
        same_shape_as: None,
        codec: Codec::Json(syllable::CODEC),
    },
    FormatInfo {
        format: Format::Skydeck,
        id: "skydeck",
        aliases: &["skydeck-prompt"],
        summary: "SkyDeck JSON prompt tool {version, model_prompt, metadata: {variables, ...}}",
        extension: "json",
        name_rule: None,
        same_shape_as: None,
        codec: Codec::Json(skydeck::CODEC),
    },
];

impl Format {
    /// The format's entry in [`FORMATS`].
    pub fn info(self) -> &'static FormatInfo {
        FORMATS
            .iter()
            .find(|info| info.format == self)
            .expect("every Format has an entry in FORMATS")
    }

    /// The id used on the command line.
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// Every format, in table order.
    pub fn all() -> impl Iterator<Item = Format> {
        FORMATS.iter().map(|info| info.format)
    }

    /// The format with this id or alias (case-insensitive).
    pub fn from_id(id: &str) -> Result<Format> {
        let wanted = id.trim().to_ascii_lowercase();
        FORMATS
            .iter()
            .find(|info| info.id == wanted || info.aliases.contains(&wanted.as_str()))
            .map(|info| info.format)
            .ok_or_else(|| {
                let ids = FORMATS.iter().map(|info| info.id);
                let hint = match closest(&wanted, ids.clone()) {
                    Some(near) => format!("; did you mean {near:?}?"),
                    None => String::new(),
                };
                let known: Vec<&str> = ids.collect();
                Error::new(
                    ErrorKind::UnknownFormat,
                    format!("{id:?} is not a format (known: {}){hint}", known.join(", ")),
                )
            })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Format {
    type Err = Error;
    fn from_str(id: &str) -> Result<Format> {
        Format::from_id(id)
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

/// What reading a document produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct Read {
    /// The format read (given or detected).
    pub format: Format,
    /// One tool or a list.
    pub shape: Shape,
    /// Each tool with its notes, or the error that stopped that tool alone.
    pub tools: Vec<Result<Converted<Tool>>>,
    /// Notes about the document as a whole (how its format was detected,
    /// list elements that are not tools).
    pub notes: Vec<Note>,
}

impl Read {
    /// The tools that were read, dropping failures and notes.
    pub fn into_tools(self) -> Vec<Tool> {
        self.tools
            .into_iter()
            .filter_map(|tool| tool.ok().map(|c| c.value))
            .collect()
    }
}

/// Reads the tools in `text` (JSON).
///
/// ```
/// let read = toolbridge::read(r#"{"name": "ping", "inputSchema": {"type": "object"}}"#,
///     &toolbridge::ReadOptions::default()).unwrap();
/// assert_eq!(read.format, toolbridge::Format::Mcp);
/// assert_eq!(read.into_tools()[0].name, "ping");
/// ```
pub fn read(text: &str, opts: &ReadOptions) -> Result<Read> {
    let located = |err: Error| match &opts.origin {
        Some(origin) => err.with_origin(origin.clone()),
        None => err,
    };
    if text.len() > opts.limits.max_bytes {
        return Err(located(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the input is {} bytes; the limit is {}",
                text.len(),
                opts.limits.max_bytes
            ),
        )));
    }
    let text_format = match opts.from {
        Some(format) => matches!(format.info().codec, Codec::Text(_)).then_some(format),
        None => detect_text(text, opts.origin.as_deref()),
    };
    if let Some(format) = text_format {
        let Codec::Text(codec) = &format.info().codec else {
            unreachable!("detect_text returns text formats only");
        };
        let tools = (codec.read)(text, opts)
            .map_err(|err| located(err.with_format(format)))?
            .into_iter()
            .map(|tool| tool.map_err(|err| located(err.with_format(format))))
            .collect();
        return Ok(Read {
            format,
            shape: Shape::List,
            tools,
            notes: Vec::new(),
        });
    }
    shared::check_json_depth(text, opts.limits.max_depth).map_err(located)?;
    let doc: Value = serde_json::from_str(text).map_err(|err| located(Error::from(err)))?;
    read_value(&doc, opts).map_err(located)
}

/// The text format an input is in, judged by its file extension and then by
/// its content; `None` for JSON.
fn detect_text(text: &str, origin: Option<&str>) -> Option<Format> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return None;
    }
    let extension = origin
        .and_then(|origin| origin.rsplit_once('.'))
        .map(|(_, extension)| extension);
    let text_formats = || {
        FORMATS.iter().filter_map(|info| match &info.codec {
            Codec::Text(codec) => Some((info, codec)),
            Codec::Json(_) => None,
        })
    };
    text_formats()
        .find(|(info, codec)| {
            extension.is_some_and(|ext| ext.eq_ignore_ascii_case(info.extension)) && (codec.detect)(text)
        })
        .or_else(|| text_formats().find(|(_, codec)| (codec.detect)(text)))
        .map(|(info, _)| info.format)
}

/// Reads the tools in an already parsed JSON document.
pub fn read_value(doc: &Value, opts: &ReadOptions) -> Result<Read> {
    let (shape, list) = shared::tool_list(doc)?;
    let mut notes = Notes::new();
    let format = match opts.from {
        Some(format) => format,
        None => detect(&list, &mut notes)?,
    };
    let Codec::Json(codec) = &format.info().codec else {
        return Err(Error::new(
            ErrorKind::InvalidJson,
            format!("{} is a source-text format, not JSON", format.id()),
        ));
    };
    let mut entries = Vec::new();
    for node in list {
        match codec.expand.and_then(|expand| expand(node.clone(), &mut notes)) {
            Some(Ok(expanded)) => entries.extend(expanded),
            Some(Err(err)) => return Err(err.with_format(format)),
            None => entries.push(node),
        }
    }
    if entries.len() > opts.limits.max_tools {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the document holds {} tools; the limit is {}",
                entries.len(),
                opts.limits.max_tools
            ),
        )
        .with_format(format));
    }
    let tools = entries
        .into_iter()
        .map(|entry| {
            let mut tool_notes = Notes::new();
            (codec.read)(entry, opts, &mut tool_notes)
                .map(|tool| Converted {
                    value: tool,
                    notes: tool_notes.into_vec(),
                })
                .map_err(|err| err.with_format(format))
        })
        .collect();
    Ok(Read {
        format,
        shape,
        tools,
        notes: notes.into_vec(),
    })
}

/// Picks the format of a tool list from its first entry.
fn detect(list: &[Node<'_>], notes: &mut Notes) -> Result<Format> {
    let Some(first) = list.first() else {
        return Ok(Format::Toolbridge);
    };
    for info in FORMATS {
        let Codec::Json(codec) = &info.codec else {
            continue;
        };
        if codec.detect.is_some_and(|detect| detect(first.value)) {
            let shared_shape: Vec<&str> = FORMATS
                .iter()
                .filter(|other| other.same_shape_as == Some(info.format))
                .map(|other| other.id)
                .collect();
            if !shared_shape.is_empty() {
                notes.push(
                    NoteKind::Normalized {
                        field: "format".into(),
                    },
                    first.at.clone(),
                    format!(
                        "read as {}; {} use the same shape (choose one with --from)",
                        info.id,
                        shared_shape.join(", ")
                    ),
                );
            }
            return Ok(info.format);
        }
    }
    Err(Error::new(
        ErrorKind::NotATool,
        "found none of the known tool shapes: {\"name\", \"inputSchema\"} (MCP, toolbridge), \
         {\"type\": \"function\", \"function\": {...}} (OpenAI, Ollama, Mistral, Cohere), \
         {\"type\": \"function\", \"name\"} (OpenAI Responses), {\"name\", \"input_schema\"} (Anthropic), \
         {\"functionDeclarations\": [...]} or {\"name\", \"parameters\"} (Gemini), {\"toolSpec\"} (Bedrock), \
         {\"tool\": {\"function\": {...}}} (Syllable), {\"model_prompt\", \"metadata\"} (SkyDeck)",
    )
    .at(first.at.clone()))
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

/// One tool as written.
#[derive(Debug)]
#[non_exhaustive]
pub struct WrittenTool {
    /// The tool's canonical name.
    pub name: String,
    /// The entry with its notes, or why this tool could not be written.
    pub result: Result<Converted<Output>>,
}

/// What writing a set of tools produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct Written {
    /// The target format.
    pub format: Format,
    /// All written entries, as the list a request's `tools` field holds.
    pub output: Output,
    /// Each tool's entry, notes or error, in input order.
    pub tools: Vec<WrittenTool>,
    /// Notes about the set as a whole (limits on the number of tools, …).
    pub notes: Vec<Note>,
    /// Canonical names and the names the target got.
    pub names: NameMap,
}

impl Written {
    /// True when every tool was written.
    pub fn is_complete(&self) -> bool {
        self.tools.iter().all(|tool| tool.result.is_ok())
    }

    /// Every note: each tool's, then the set's.
    pub fn all_notes(&self) -> impl Iterator<Item = &Note> {
        self.tools
            .iter()
            .filter_map(|tool| tool.result.as_ref().ok())
            .flat_map(|converted| converted.notes.iter())
            .chain(self.notes.iter())
    }
}

/// Writes `tools` in format `to`, each on its own: a tool that cannot be
/// written is reported in [`Written::tools`] and the others still come out.
pub fn write(tools: &[Tool], to: Format, opts: &WriteOptions) -> Written {
    let info = to.info();
    let names = NameMap::build(
        tools.iter().map(|tool| tool.name.as_str()),
        info.name_rule.as_ref(),
    );
    let mut written = Vec::with_capacity(tools.len());
    let mut entries = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let mut notes = Notes::new();
        let target_name = names.target_at(index).unwrap_or(&tool.name);
        let renamed;
        let tool_to_write = if target_name == tool.name {
            tool
        } else {
            notes.push(
                NoteKind::Renamed {
                    from: tool.name.clone(),
                    to: target_name.to_string(),
                },
                Pointer::root().key("name"),
                format!(
                    "renamed {:?} to {target_name:?} to fit {}'s name rules",
                    tool.name, info.id
                ),
            );
            renamed = Tool {
                name: target_name.to_string(),
                ..tool.clone()
            };
            &renamed
        };
        let result = match &info.codec {
            Codec::Json(codec) => (codec.write)(tool_to_write, opts, &mut notes).map(Output::Json),
            Codec::Text(codec) => (codec.write)(tool_to_write, opts, &mut notes).map(Output::Text),
        }
        .map_err(|err| err.with_format(to));
        if let Ok(output) = &result {
            entries.push(output.clone());
        }
        written.push(WrittenTool {
            name: tool.name.clone(),
            result: result.map(|value| Converted {
                value,
                notes: notes.into_vec(),
            }),
        });
    }
    let mut set_notes = Notes::new();
    let output = match &info.codec {
        Codec::Json(codec) => {
            let values: Vec<Value> = entries
                .into_iter()
                .filter_map(|entry| entry.as_json().cloned())
                .collect();
            if let Some(check_set) = codec.check_set {
                check_set(&values, opts, &mut set_notes);
            }
            Output::Json((codec.wrap)(values))
        }
        Codec::Text(codec) => Output::Text((codec.join)(
            entries
                .into_iter()
                .filter_map(|entry| match entry {
                    Output::Text(text) => Some(text),
                    Output::Json(_) => None,
                })
                .collect(),
        )),
    };
    Written {
        format: to,
        output,
        tools: written,
        notes: set_notes.into_vec(),
        names,
    }
}

/// Writes one tool in format `to`: the entry alone, not wrapped in a list.
pub fn write_tool(tool: &Tool, to: Format, opts: &WriteOptions) -> Result<Converted<Output>> {
    let mut written = write(std::slice::from_ref(tool), to, opts);
    let mut only = written.tools.remove(0).result?;
    only.notes.extend(written.notes);
    Ok(only)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_aliases_resolve() {
        assert_eq!(Format::from_id("MCP").unwrap(), Format::Mcp);
        assert_eq!(Format::from_id("canonical").unwrap(), Format::Toolbridge);
        let err = Format::from_id("mpc").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::UnknownFormat);
        assert!(err.to_string().contains("did you mean \"mcp\"?"), "{err}");
    }

    #[test]
    fn every_format_has_one_entry() {
        for info in FORMATS {
            assert_eq!(info.format.info().id, info.id);
            assert_eq!(FORMATS.iter().filter(|other| other.id == info.id).count(), 1);
        }
    }
}
