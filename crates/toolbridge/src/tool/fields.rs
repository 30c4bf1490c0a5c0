//! The canonical tool's top-level fields, listed once.
//!
//! Writers' "no place for" notes, the MCP writer's `_meta` moves, the
//! canonical reader's did-you-mean and detection all read this list; a test
//! checks that it, the serde form of [`Tool`] and `file_schema.json` agree.

use super::{Confirm, Include, Tool};

/// One top-level field of a tool file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Field {
    /// The key in a tool file (`inputSchema`, `_meta`).
    pub key: &'static str,
    /// Only the canonical format has it (MCP keeps it under `_meta`); its
    /// presence marks a document as a toolbridge file.
    pub toolbridge_only: bool,
}

const fn shared(key: &'static str) -> Field {
    Field {
        key,
        toolbridge_only: false,
    }
}

const fn own(key: &'static str) -> Field {
    Field {
        key,
        toolbridge_only: true,
    }
}

/// Every field, in the order a tool file is written. Keys that are none of
/// these are kept in [`Tool::extra`] and written after them.
pub const FIELDS: [Field; 21] = [
    shared("name"),
    shared("title"),
    shared("description"),
    shared("inputSchema"),
    shared("outputSchema"),
    shared("annotations"),
    shared("icons"),
    shared("execution"),
    own("strict"),
    own("async"),
    own("confirm"),
    own("include"),
    own("category"),
    own("run"),
    own("defaults"),
    own("staticParameters"),
    own("fixedResult"),
    own("propagateResult"),
    own("metadata"),
    own("vendor"),
    shared("_meta"),
];

/// The field with this key, if it is one.
pub fn field(key: &str) -> Option<Field> {
    FIELDS.iter().copied().find(|field| field.key == key)
}

/// The keys of the fields only the canonical format has.
pub(crate) fn toolbridge_only() -> impl Iterator<Item = &'static str> {
    FIELDS
        .iter()
        .filter(|field| field.toolbridge_only)
        .map(|field| field.key)
}

impl Tool {
    /// The keys of the fields this tool has, in [`FIELDS`] order, then its
    /// [`extra`](Tool::extra) keys — the keys of its tool file, without
    /// writing it.
    pub fn present_keys(&self) -> impl Iterator<Item = &str> {
        let present = [
            true,
            self.title.is_some(),
            self.description.is_some(),
            true,
            self.output_schema.is_some(),
            self.annotations.is_some(),
            self.icons.is_some(),
            self.execution.is_some(),
            self.strict.is_some(),
            self.is_async.is_some(),
            self.confirm.is_some(),
            self.include.is_some(),
            self.category.is_some(),
            self.run.is_some(),
            self.defaults.is_some(),
            self.static_parameters.is_some(),
            self.fixed_result.is_some(),
            self.propagate_result.is_some(),
            self.metadata.is_some(),
            self.vendor.is_some(),
            self.meta.is_some(),
        ];
        FIELDS
            .iter()
            .zip(present)
            .filter(|(_, present)| *present)
            .map(|(field, _)| field.key)
            .chain(self.extra.keys().map(String::as_str))
    }

    /// True when field `key` holds the value its absence means (`async:
    /// false`, `confirm: false`, `include: "none"`, `strict: false`,
    /// `propagateResult: false`): a format without the field loses nothing.
    pub fn holds_default(&self, key: &str) -> bool {
        match key {
            "async" => self.is_async == Some(false),
            "confirm" => self.confirm == Some(Confirm::Always(false)),
            "include" => self.include == Some(Include::None),
            "strict" => self.strict == Some(false),
            "propagateResult" => self.propagate_result == Some(false),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A tool with every field set, read from its tool file.
    fn full_tool() -> Tool {
        serde_json::from_value(json!({
            "name": "t", "title": "T", "description": "d", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true},
            "icons": [{"src": "data:,"}], "execution": {"taskSupport": "optional"}, "strict": true,
            "async": false, "confirm": true, "include": "all", "category": "c",
            "run": {"kind": "action"}, "defaults": {"n": 1},
            "staticParameters": [{"name": "s", "type": "string"}], "fixedResult": "r",
            "propagateResult": true, "metadata": {"version": "1"}, "vendor": {"openai": {"x": 1}},
            "_meta": {"k": 1}, "zzz": 2
        }))
        .unwrap()
    }

    #[test]
    fn the_list_the_serde_form_and_the_file_schema_agree() {
        let tool = full_tool();
        let Value::Object(written) = tool.to_value() else {
            panic!("a tool serializes to an object");
        };
        let serde_keys: Vec<&str> = written.keys().map(String::as_str).collect();
        let mut listed: Vec<&str> = FIELDS.iter().map(|field| field.key).collect();
        listed.push("zzz");
        assert_eq!(serde_keys, listed);
        assert_eq!(tool.present_keys().collect::<Vec<_>>(), listed);
        let schema = crate::tool::file::schema();
        let schema_keys: Vec<&str> = schema["$defs"]["tool"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(schema_keys, listed[..FIELDS.len()]);
    }

    #[test]
    fn a_bare_tool_has_only_its_name_and_schema() {
        let tool = Tool::new("t", json!({"type": "object"}));
        assert_eq!(tool.present_keys().collect::<Vec<_>>(), ["name", "inputSchema"]);
        assert_eq!(field("_meta").map(|f| f.toolbridge_only), Some(false));
        assert_eq!(toolbridge_only().count(), 12);
        let mut tool = tool;
        tool.is_async = Some(false);
        tool.include = Some(Include::None);
        tool.confirm = Some(Confirm::Always(true));
        assert!(tool.holds_default("async") && tool.holds_default("include"));
        assert!(!tool.holds_default("confirm") && !tool.holds_default("name"));
    }
}
