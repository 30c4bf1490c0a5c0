//! MCP tool annotations (behaviour hints) and ellmer's `tool_annotations()`.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// MCP `ToolAnnotations`: hints about a tool's behaviour, plus extra keys.
///
/// Every hint is optional. MCP gives an absent hint a default
/// (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true); the accessors apply those defaults, the fields keep
/// what the input said, and [`Annotations::with_defaults`] fills them in only
/// when asked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// A human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool may interact with an open world of external entities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Other annotation keys, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The four MCP hints: canonical camelCase name, ellmer snake_case name, MCP default.
pub const HINTS: [(&str, &str, bool); 4] = [
    ("readOnlyHint", "read_only_hint", false),
    ("destructiveHint", "destructive_hint", true),
    ("idempotentHint", "idempotent_hint", false),
    ("openWorldHint", "open_world_hint", true),
];

impl Annotations {
    /// `readOnlyHint`, or MCP's default `false`.
    pub fn read_only(&self) -> bool {
        self.read_only_hint.unwrap_or(false)
    }

    /// `destructiveHint`, or MCP's default `true`.
    pub fn destructive(&self) -> bool {
        self.destructive_hint.unwrap_or(true)
    }

    /// `idempotentHint`, or MCP's default `false`.
    pub fn idempotent(&self) -> bool {
        self.idempotent_hint.unwrap_or(false)
    }

    /// `openWorldHint`, or MCP's default `true`.
    pub fn open_world(&self) -> bool {
        self.open_world_hint.unwrap_or(true)
    }

    /// A copy with every absent hint set to MCP's default.
    pub fn with_defaults(&self) -> Annotations {
        Annotations {
            read_only_hint: Some(self.read_only()),
            destructive_hint: Some(self.destructive()),
            idempotent_hint: Some(self.idempotent()),
            open_world_hint: Some(self.open_world()),
            ..self.clone()
        }
    }

    /// The hint called `name` (camelCase), as given.
    pub fn hint(&self, name: &str) -> Option<bool> {
        match name {
            "readOnlyHint" => self.read_only_hint,
            "destructiveHint" => self.destructive_hint,
            "idempotentHint" => self.idempotent_hint,
            "openWorldHint" => self.open_world_hint,
            _ => None,
        }
    }

    /// Sets the hint called `name` (camelCase); returns false for other names.
    pub fn set_hint(&mut self, name: &str, value: Option<bool>) -> bool {
        let slot = match name {
            "readOnlyHint" => &mut self.read_only_hint,
            "destructiveHint" => &mut self.destructive_hint,
            "idempotentHint" => &mut self.idempotent_hint,
            "openWorldHint" => &mut self.open_world_hint,
            _ => return false,
        };
        *slot = value;
        true
    }

    /// True when nothing at all is set.
    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && HINTS.iter().all(|(name, _, _)| self.hint(name).is_none())
            && self.extra.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_applied_only_when_asked() {
        let given = Annotations {
            read_only_hint: Some(true),
            ..Annotations::default()
        };
        assert_eq!(given.destructive_hint, None);
        assert!(given.destructive());
        let filled = given.with_defaults();
        assert_eq!(filled.read_only_hint, Some(true));
        assert_eq!(filled.destructive_hint, Some(true));
        assert_eq!(filled.idempotent_hint, Some(false));
        assert_eq!(filled.open_world_hint, Some(true));
    }
}
