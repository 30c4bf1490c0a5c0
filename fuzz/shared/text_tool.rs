//! The tool whose schema types raw-text calls in the `text` and
//! `text_stream` targets.

/// A tool `f` of typed properties, with local references: one beside
/// null, one to itself (see `typed::Property`).
pub fn text_tool() -> toolbridge::Tool {
    toolbridge::Tool::new(
        "f",
        serde_json::json!({
            "properties": {
                "n": {"type": "integer"}, "s": {"type": "string"}, "t": {"type": "array"},
                "r": {"$ref": "#/$defs/r"}, "o": {"anyOf": [{"$ref": "#/$defs/r"}, {"type": "null"}]},
                "l": {"$ref": "#/properties/l"},
            },
            "$defs": {"r": {"type": "object", "properties": {"n": {"$ref": "#/properties/n"}}}},
        }),
    )
}
