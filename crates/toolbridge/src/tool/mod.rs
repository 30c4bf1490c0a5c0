//! The canonical tool: one definition every format is read into and written from.
//!
//! A tool file is a superset of the MCP `Tool` object, so every MCP tool
//! definition is already a valid tool file. Field names follow MCP's camelCase.
//! The JSON Schema of the file format is [`file::FILE_SCHEMA`] (also printed by
//! `toolbridge schema`).

mod annotations;
mod defaults;
mod fields;
pub mod file;
mod metadata;
mod run;
mod static_parameter;
pub mod template;

pub use annotations::{Annotations, HINTS};
pub use defaults::{Condition, ParameterDefault, Transform, TransformAction};
pub(crate) use fields::toolbridge_only;
pub use fields::{field, Field, FIELDS};
pub use metadata::{Creator, Metadata};
pub use run::{ActionRun, ArgumentLocation, CommandRun, ContextRun, EndpointRun, HttpMethod, PromptRun, Run};
pub use static_parameter::{StaticParameter, StaticParameterType};

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One tool definition.
///
/// Build one with [`Tool::new`] and set the public fields, or read one with
/// [`crate::read`].
///
/// ```
/// use serde_json::json;
/// let mut tool = toolbridge::Tool::new("get_weather", json!({
///     "type": "object",
///     "properties": {"city": {"type": "string"}},
///     "required": ["city"]
/// }));
/// tool.description = Some("Current weather for a city".into());
/// assert_eq!(tool.display_title(), "get_weather");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Tool {
    /// The name the model calls the tool by.
    pub name: String,
    /// A human-readable display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema (2020-12 unless `$schema` says otherwise) of the arguments;
    /// the root is `{"type": "object", …}`.
    pub input_schema: Value,
    /// JSON Schema of the structured result, if the tool declares one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// MCP behaviour hints and title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons for user interfaces (MCP `Icon` objects).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// MCP `execution` settings (2025-11-25 task support), kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<Value>,
    /// Ask providers for strict (grammar-constrained) arguments where they have it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
    /// The handler takes a callback and answers later (gptel / llm.el `:async`).
    #[serde(default, rename = "async", skip_serializing_if = "Option::is_none")]
    pub is_async: Option<bool>,
    /// Ask the user before running (gptel `:confirm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirm: Option<Confirm>,
    /// What of the call goes into a chat transcript (gptel `:include`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<Include>,
    /// A grouping label for registries and menus (gptel `:category`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// How the tool executes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<Run>,
    /// Values and transforms applied to arguments the model did not give
    /// (Syllable semantics), in declaration order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaults: Option<IndexMap<String, ParameterDefault>>,
    /// Parameters fixed when the tool is configured and hidden from the model
    /// (Syllable `static_parameters`); they are not in `inputSchema`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_parameters: Option<Vec<StaticParameter>>,
    /// A result given with the definition (Syllable `result`): what a
    /// `context` tool replies; for other run kinds Syllable documents it only
    /// as "the optional result of the tool call". `null` counts as absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_result: Option<Value>,
    /// Pass the call's result through to the caller (the application or the
    /// person in the conversation), not only to the model (Syllable
    /// `options.propagate_tool_result`; absent means no).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub propagate_result: Option<bool>,
    /// Version, authorship, model hints and other descriptive data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Fields one format has and the canonical model does not, keyed by
    /// format id (`{"anthropic": {"cache_control": …}}`), so that a round trip
    /// through that format keeps them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<IndexMap<String, Map<String, Value>>>,
    /// MCP `_meta`, passed through.
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys toolbridge does not define, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Tool {
    /// A tool with a name and an input schema and nothing else.
    pub fn new(name: impl Into<String>, input_schema: Value) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            strict: None,
            is_async: None,
            confirm: None,
            include: None,
            category: None,
            run: None,
            defaults: None,
            static_parameters: None,
            fixed_result: None,
            propagate_result: None,
            metadata: None,
            vendor: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// The name to show people: `title`, else `annotations.title`, else `name`
    /// (MCP's display precedence).
    pub fn display_title(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }

    /// The fields a format keeps for itself (see [`Tool::vendor`]).
    pub fn vendor_fields(&self, format_id: &str) -> Option<&Map<String, Value>> {
        self.vendor.as_ref().and_then(|vendor| vendor.get(format_id))
    }

    /// Stores `fields` as the vendor fields of `format_id` (nothing if empty).
    pub fn set_vendor_fields(&mut self, format_id: &str, fields: Map<String, Value>) {
        if fields.is_empty() {
            return;
        }
        self.vendor
            .get_or_insert_with(IndexMap::new)
            .insert(format_id.to_string(), fields);
    }

    /// The tool as canonical JSON.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a Tool always serializes")
    }
}

/// An MCP icon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// An `http(s):` or `data:` URI.
    pub src: String,
    /// The MIME type, such as `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `["48x48"]` or `["any"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// `light` or `dark`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Icon {
    /// An icon with only a source URI.
    pub fn new(src: impl Into<String>) -> Icon {
        Icon {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
            extra: Map::new(),
        }
    }
}

/// Whether to ask the user before a call runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Confirm {
    /// Always ask (`true`) or never (`false`).
    Always(bool),
    /// Ask when a predicate, given as source code per language
    /// (`{"elisp": "(lambda (path) …)"}`), returns true.
    When(IndexMap<String, String>),
}

/// What of a call goes into a chat transcript (gptel `:include`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Include {
    /// The call and its result (gptel `t`).
    All,
    /// The call only (gptel `call`).
    Call,
    /// Neither (gptel `nil`).
    None,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_in_canonical_order_and_keeps_unknown_keys() {
        let value = json!({
            "name": "t", "zzz": 1, "async": true, "inputSchema": {"type": "object"},
            "_meta": {"a": 1}, "title": "T"
        });
        let tool: Tool = serde_json::from_value(value).unwrap();
        assert_eq!(tool.is_async, Some(true));
        assert_eq!(tool.extra.get("zzz"), Some(&json!(1)));
        assert_eq!(
            serde_json::to_string(&tool).unwrap(),
            r#"{"name":"t","title":"T","inputSchema":{"type":"object"},"async":true,"_meta":{"a":1},"zzz":1}"#
        );
    }

    #[test]
    fn syllable_fields_have_a_camel_case_json_form() {
        let value = json!({
            "name": "set_language", "inputSchema": {"type": "object"},
            "run": {"kind": "context", "task": {"type": "expression", "expression": {"type": "cel", "expression": "1"}}},
            "staticParameters": [{"name": "unit", "type": "string", "default": "celsius"}],
            "fixedResult": {"ok": true},
            "propagateResult": false
        });
        let tool: Tool = serde_json::from_value(value.clone()).unwrap();
        let Some(Run::Context(context)) = &tool.run else {
            panic!("not a context run: {:?}", tool.run)
        };
        assert_eq!(context.task.as_ref().unwrap()["type"], "expression");
        let parameters = tool.static_parameters.as_ref().unwrap();
        assert_eq!(parameters[0].value_type, StaticParameterType::String);
        assert!(!parameters[0].required);
        assert_eq!(tool.fixed_result, Some(json!({"ok": true})));
        assert_eq!(tool.propagate_result, Some(false));
        assert!(tool.extra.is_empty());
        assert_eq!(tool.to_value(), value);
        let null_result: Tool = serde_json::from_value(
            json!({"name": "t", "inputSchema": {"type": "object"}, "fixedResult": null}),
        )
        .unwrap();
        assert_eq!(null_result.fixed_result, None);
    }

    #[test]
    fn display_title_follows_mcp_precedence() {
        let mut tool = Tool::new("n", json!({"type": "object"}));
        assert_eq!(tool.display_title(), "n");
        tool.annotations = Some(Annotations {
            title: Some("A".into()),
            ..Annotations::default()
        });
        assert_eq!(tool.display_title(), "A");
        tool.title = Some("T".into());
        assert_eq!(tool.display_title(), "T");
    }

    #[test]
    fn confirm_is_a_flag_or_code() {
        let flag: Confirm = serde_json::from_value(json!(true)).unwrap();
        assert_eq!(flag, Confirm::Always(true));
        let code: Confirm = serde_json::from_value(json!({"elisp": "(lambda (x) t)"})).unwrap();
        assert!(matches!(code, Confirm::When(map) if map["elisp"] == "(lambda (x) t)"));
    }
}
