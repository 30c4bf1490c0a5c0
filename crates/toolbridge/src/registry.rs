//! The table of formats, [`FORMATS`]: ids and aliases for `--from` and
//! `--to`, the `toolbridge formats` listing, detection and the README table
//! all come from it.

use std::str::FromStr;

use crate::codec::Codec;
use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    anthropic, bedrock, cohere, ellmer, gemini, gemini_json, gptel, llm, mcp, mistral, ollama, openai,
    openai_responses, skydeck, syllable, toolbridge,
};
use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::options::Format;
use crate::schema::names::NameRule;
use crate::suggest::closest;

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
    /// A format whose entries can look like this one's but read differently:
    /// when a document is detected (not named) as this format and one of its
    /// tools fails to read, the document is read as this other format, and
    /// kept that way if every tool reads (a flat `{name, parameters}` list
    /// with JSON Schema parameters is the OpenAI function shape, not Gemini).
    pub(crate) fallback: Option<Format>,
    pub(crate) codec: Codec,
}

/// Every format, in [`Format::ALL`] order (a test keeps the two in step).
pub static FORMATS: &[FormatInfo] = &[
    FormatInfo {
        format: Format::Toolbridge,
        id: "toolbridge",
        aliases: &["canonical"],
        summary: "the canonical tool file: a superset of the MCP Tool object",
        extension: "json",
        name_rule: None,
        same_shape_as: None,
        fallback: None,
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
        fallback: None,
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
        fallback: None,
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
        fallback: None,
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
        fallback: Some(Format::OpenAiResponses),
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
        fallback: None,
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
        fallback: None,
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
        fallback: None,
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
        fallback: None,
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
        fallback: None,
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
        fallback: None,
        codec: Codec::Json(cohere::CODEC),
    },
    FormatInfo {
        format: Format::Gptel,
        id: "gptel",
        aliases: &[],
        summary: "Emacs Lisp (gptel-make-tool ...) forms for gptel",
        extension: "el",
        name_rule: Some(gptel::NAME_RULE),
        same_shape_as: None,
        fallback: None,
        codec: Codec::Text(gptel::CODEC),
    },
    FormatInfo {
        format: Format::Llm,
        id: "llm",
        aliases: &["llm.el"],
        summary: "Emacs Lisp (llm-make-tool ...) forms for llm.el",
        extension: "el",
        name_rule: Some(llm::NAME_RULE),
        same_shape_as: None,
        fallback: None,
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
        fallback: None,
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
        fallback: None,
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
        fallback: None,
        codec: Codec::Json(skydeck::CODEC),
    },
];

impl Format {
    /// The format's entry in [`FORMATS`].
    pub fn info(self) -> &'static FormatInfo {
        &FORMATS[self as usize]
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

impl FromStr for Format {
    type Err = Error;
    fn from_str(id: &str) -> Result<Format> {
        Format::from_id(id)
    }
}

/// The text format an input is in, judged by its file extension and then by
/// its content; `None` for JSON.
pub(crate) fn detect_text(text: &str, origin: Option<&str>) -> Option<Format> {
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

/// Picks the format of a tool list from its first entry.
pub(crate) fn detect(list: &[Node<'_>], notes: &mut Notes) -> Result<Format> {
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
    fn the_table_follows_format_all() {
        assert_eq!(FORMATS.len(), Format::ALL.len());
        for (info, format) in FORMATS.iter().zip(Format::ALL) {
            assert_eq!(info.format, format);
            assert_eq!(info.id, format.id());
            assert_eq!(format.info().id, info.id);
        }
    }
}
