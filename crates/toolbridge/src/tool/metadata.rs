//! Descriptive data about a tool: version, authorship, model hints.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Version, authorship, usage notes and model hints (SkyDeck's `metadata`, generalised).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Metadata {
    /// Version of the definition: a string or an integer, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<Value>,
    /// When the definition was created or last changed (ISO 8601).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Who made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator: Option<Creator>,
    /// Free-form notes for people using the tool (not sent to the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_notes: Option<String>,
    /// Models the tool is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
    /// Model parameters such as `temperature` or `max_tokens`, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_parameters: Option<Map<String, Value>>,
    /// Other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The author of a tool definition.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Creator {
    /// Name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// E-mail address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Organisation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<String>,
    /// Other keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Metadata {
    /// True when nothing at all is set.
    pub fn is_empty(&self) -> bool {
        *self == Metadata::default()
    }
}
