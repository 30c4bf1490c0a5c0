//! `skydeck`: SkyDeck's "JSON format for LLM tools", a portable prompt
//! template with typed variables.
//!
//! ```json
//! {"version": 2,
//!  "model_prompt": "Review this {{language}} code: {{code}}",
//!  "metadata": {"prompt_name": "Code Reviewer", "description": "…", "usage_notes": "…",
//!    "model_version": ["gpt-4o"], "creator": {"name": "…", "email": "…", "organization": "…"},
//!    "parameters": {"temperature": 0.2, "max_tokens": 800},
//!    "variables": [{"name": "language", "type": "single-select", "default": "Rust",
//!                   "allowed_values": ["Rust", "Go"]}, …],
//!    "expected_output": {"type": "text", "format": "Markdown"},
//!    "avatar_type": "url", "avatar": "https://…", "timestamp": "2026-05-01T09:30:00Z"}}
//! ```
//!
//! Mapping:
//!
//! | SkyDeck | canonical |
//! | --- | --- |
//! | `model_prompt` | `run: {"kind": "prompt", "template": …}` (same `{{variable}}` syntax) |
//! | `metadata.prompt_name` | `title`; `name` is the prompt name itself when it is a valid tool name (`[A-Za-z0-9_.-]+`), else its lowercase ASCII words joined by `_` (`"Code Reviewer"` → `code_reviewer`), else `prompt` |
//! | `metadata.description` | `description` |
//! | `version`, `metadata.timestamp`, `.creator`, `.usage_notes`, `.model_version`, `.parameters` | `metadata.version`, `.timestamp`, `.creator`, `.usageNotes`, `.models`, `.modelParameters` |
//! | other `metadata` keys / other top-level keys | `metadata` (kept as given) / `vendor.skydeck` |
//! | variable `text` | property `{"type": "string"}` |
//! | variable `single-select` | property `{"type": "string", "enum": allowed_values}` |
//! | variable `multi-select` | property `{"type": "array", "items": {"type": "string", "enum": allowed_values}, "uniqueItems": true}` |
//! | variable `description`, `default` | the property's `description`, `default`; a variable **without a default is required** |
//! | `expected_output` | `outputSchema`: `{"type": "string"}`, `allowed_values` → `enum`; the output `type` is implied (`limited` with allowed values, else `text`) or kept as `x-skydeck-type`; `format`, `language` → `x-skydeck-format`, `x-skydeck-language` |
//! | `avatar_type: url` / `base64` + `avatar` | `icons[0].src`: the URL / a `data:` URI whose MIME type is recognised from the image bytes |
//!
//! Reading accepts the sloppiness of the published sample, each with a note:
//! `model_version` as one string, the translated variable types
//! `文本`/`单选`/`多选`, a `single-select` without choices (read as text), a
//! single string as a `multi-select` default, `avatar` as an object holding
//! `avatar_type` and `avatar`, a missing `avatar_type`. Placeholders with no
//! declared variable, and variables the prompt never uses, are noted.
//!
//! Writing a tool without a prompt run generates `model_prompt` from the
//! description and the input properties (a note says so): the tool keeps a
//! usable form instead of failing, and reads back as a prompt tool. Input
//! properties that fit no variable type are written as text variables, and
//! output schemas that are not strings as text in JSON format, with loss notes.
//! One tool is written as one SkyDeck document; several as a list of them.
//!
//! Here: the `CODEC`, detection, wrapping and the naming rule both directions
//! share. `read.rs` and `write.rs` hold the two directions; `template.rs` the
//! `{{ name }}` placeholders of `model_prompt`, `output.rs` `expected_output`,
//! `avatar.rs` the avatar.

mod avatar;
mod output;
mod read;
mod template;
mod write;

use serde_json::Value;

use crate::codec::{JsonCodec, Layout};

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read: read::read,
    write: write::write,
    layout: Layout::OneOrList,
    check_set: None,
};

const ID: &str = "skydeck";

fn detect(entry: &Value) -> bool {
    entry.get("model_prompt").is_some() && entry.get("metadata").is_none_or(Value::is_object)
}

/// The tool name a prompt name reads as: itself when it is a valid tool name,
/// else its lowercase ASCII words joined by `_` (empty when it has none).
fn name_from(prompt_name: &str) -> String {
    let valid = !prompt_name.is_empty()
        && prompt_name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if valid {
        return prompt_name.to_string();
    }
    let mut name = String::new();
    let mut gap = false;
    for c in prompt_name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !name.is_empty() {
                name.push('_');
            }
            gap = false;
            name.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_come_from_prompt_names() {
        assert_eq!(name_from("get_weather"), "get_weather");
        assert_eq!(name_from("getWeather.v2"), "getWeather.v2");
        assert_eq!(name_from("Code Reviewer"), "code_reviewer");
        assert_eq!(name_from("  SQL -> Python (beta) "), "sql_python_beta");
        assert_eq!(name_from("翻译助手"), "");
        assert_eq!(name_from("翻译 GPT 助手"), "gpt");
    }

    #[test]
    fn one_document_is_not_wrapped() {
        assert_eq!(CODEC.layout.wrap(vec![json!({"a": 1})]), json!({"a": 1}));
        assert_eq!(CODEC.layout.wrap(vec![json!(1), json!(2)]), json!([1, 2]));
    }
}
