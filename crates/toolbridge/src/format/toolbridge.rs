//! `toolbridge`: the canonical tool file, read and written without loss.
//!
//! Reading validates each tool against the published file schema
//! ([`crate::tool::file::FILE_SCHEMA`]), so an error names the exact place;
//! keys the schema does not define are kept and noted (with a suggestion
//! when one looks like a typo).

use std::borrow::Cow;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

use crate::codec::{JsonCodec, Layout};
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::{check_schema_in_place, unrequire_filled};
use crate::json::validate::Compiled;
use crate::json::Entry;
use crate::note::{NoteKind, Notes};
use crate::options::{ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::suggest::closest;
use crate::tool::{file, toolbridge_only, Tool, FIELDS};

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: None,
    read,
    write,
    layout: Layout::List,
    check_set: None,
};

fn detect(entry: &Value) -> bool {
    entry.get("name").is_some_and(Value::is_string)
        && entry.get("inputSchema").is_some()
        && toolbridge_only().any(|key| entry.get(key).is_some())
}

fn validator() -> &'static Compiled {
    static VALIDATOR: OnceLock<Compiled> = OnceLock::new();
    VALIDATOR.get_or_init(|| Compiled::new(&file::tool_schema()).expect("the tool schema compiles"))
}

pub(crate) fn read(entry: Entry, _opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    entry.node().object()?;
    let violations = validator().violations(&entry.value);
    if let Some(first) = violations.first() {
        let more = match violations.len() - 1 {
            0 => String::new(),
            1 => " (and 1 more problem)".to_string(),
            n => format!(" (and {n} more problems)"),
        };
        return Err(
            Error::new(ErrorKind::InvalidTool, format!("{}{more}", first.message))
                .at(entry.at.join(&first.at)),
        );
    }
    // Deserialised from the entry itself: its strings and maps move into the
    // tool instead of being copied.
    let mut tool = Tool::deserialize(entry.value)
        .map_err(|err| Error::new(ErrorKind::InvalidTool, err.to_string()).at(entry.at.clone()))?;
    check_schema_in_place(&mut tool.input_schema, &entry.at.key("inputSchema"), notes)?;
    unrequire_filled(&mut tool, &entry.at.key("defaults"), notes);
    for key in tool.extra.keys() {
        let known = FIELDS.iter().map(|field| field.key);
        let hint = match closest(key, known) {
            Some(near) => format!("; did you mean {near:?}?"),
            None => String::new(),
        };
        notes.push(
            NoteKind::Kept { key: key.into() },
            entry.at.key(key),
            format!("{key:?} is not a toolbridge field; kept as it is{hint}"),
        );
    }
    Ok(tool)
}

pub(crate) fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    crate::schema::check_refs(
        &tool.input_schema,
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        notes,
    );
    Ok(with_annotation_defaults(tool, opts, notes).to_value())
}

/// The tool with absent MCP hints filled in, when the options ask for it.
pub(crate) fn with_annotation_defaults<'t>(
    tool: &'t Tool,
    opts: &WriteOptions,
    notes: &mut Notes,
) -> Cow<'t, Tool> {
    if !opts.annotation_defaults {
        return Cow::Borrowed(tool);
    }
    let mut tool = tool.clone();
    let given = tool.annotations.clone().unwrap_or_default();
    let filled = given.with_defaults();
    for (name, _, default) in crate::tool::HINTS {
        if given.hint(name).is_none() {
            notes.push(
                NoteKind::Defaulted { field: name.into() },
                Pointer::root().key("annotations").key(name),
                format!("{name} was absent; wrote MCP's default {default}"),
            );
        }
    }
    tool.annotations = Some(filled);
    Cow::Owned(tool)
}
