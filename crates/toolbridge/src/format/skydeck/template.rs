//! The prompt template: notes on the `{{ name }}` placeholders of
//! `model_prompt` (the grammar is [`crate::tool::template`]'s, shared with
//! the `prompt` run), and the template written for a tool without a prompt run.

use serde_json::Value;

use crate::json::Node;
use crate::note::{NoteKind, Notes};
use crate::pointer::Pointer;
use crate::tool::template::placeholders;
use crate::tool::{Run, Tool};

/// Notes placeholders with no declared variable, and variables no placeholder uses.
pub(super) fn note_placeholders(
    template: &str,
    declared: &[String],
    entry: &Node<'_>,
    metadata: &Node<'_>,
    notes: &mut Notes,
) {
    let used = placeholders(template);
    for name in &used {
        if !declared.iter().any(|declared| declared.as_str() == *name) {
            notes.push(
                NoteKind::Kept { key: (*name).into() },
                entry.at.key("model_prompt"),
                format!(
                    "the placeholder {{{{{name}}}}} names no declared variable; kept in the prompt as it is"
                ),
            );
        }
    }
    for (index, name) in declared.iter().enumerate() {
        if !used.contains(&name.as_str()) {
            notes.push(
                NoteKind::Kept { key: name.into() },
                metadata.at.key("variables").index(index),
                format!("the variable {name:?} is never used in model_prompt; kept as an input"),
            );
        }
    }
}

/// The prompt template; for a tool without a prompt run, one generated from
/// its description and input properties.
pub(super) fn write_prompt(tool: &Tool, notes: &mut Notes) -> String {
    if let Some(Run::Prompt(prompt)) = &tool.run {
        return prompt.template.clone();
    }
    let mut lines = vec![tool
        .description
        .clone()
        .unwrap_or_else(|| tool.display_title().to_string())];
    let properties = tool.input_schema.get("properties").and_then(Value::as_object);
    if let Some(properties) = properties.filter(|properties| !properties.is_empty()) {
        lines.push(String::new());
        lines.extend(properties.keys().map(|name| format!("{name}: {{{{{name}}}}}")));
    }
    let generated = "model_prompt was generated from the description and the input properties";
    match &tool.run {
        Some(run) => notes.push(
            NoteKind::Dropped {
                keyword: "run".into(),
            },
            Pointer::root().key("run"),
            format!(
                "SkyDeck tools are prompt templates; the {} run cannot be expressed, and {generated}",
                run.kind()
            ),
        ),
        None => notes.push(
            NoteKind::Placeholder {
                field: "model_prompt".into(),
            },
            Pointer::root().key("run"),
            format!("SkyDeck tools are prompt templates and this tool has none; {generated}"),
        ),
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::write::write;
    use super::*;
    use crate::options::WriteOptions;
    use serde_json::json;

    fn write_tool(tool: Value) -> (Value, Vec<String>) {
        let tool: Tool = serde_json::from_value(tool).unwrap();
        let mut notes = Notes::new();
        let written = write(&tool, &WriteOptions::default(), &mut notes).unwrap();
        (written, notes.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn a_tool_without_a_prompt_gets_a_generated_one() {
        let (written, notes) = write_tool(json!({"name": "get_weather", "description": "Current weather.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}));
        assert_eq!(written["model_prompt"], "Current weather.\n\ncity: {{city}}");
        assert_eq!(
            notes,
            ["change: SkyDeck tools are prompt templates and this tool has none; model_prompt was generated from the description and the input properties (at /run)"]
        );
        let (written, notes) = write_tool(
            json!({"name": "ping", "title": "Ping!", "inputSchema": {"type": "object"},
            "run": {"kind": "command", "program": "ping"}}),
        );
        assert_eq!(written["model_prompt"], "Ping!");
        assert_eq!(written["metadata"]["prompt_name"], "Ping!");
        assert_eq!(
            notes,
            [
                "loss: SkyDeck tools are prompt templates; the command run cannot be expressed, and model_prompt was generated from the description and the input properties (at /run)",
            ]
        );
    }
}
