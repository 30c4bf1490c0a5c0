//! Pieces every reader or writer uses: finding the tool list in a document,
//! checking an input schema, and noting what a writer leaves out.

use serde_json::{Map, Value};

use crate::error::{Error, ErrorKind, Result};
use crate::json::describe;
use crate::json::validate::check_schema;
use crate::json::Node;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, Shape, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::respell_read_tuples;
use crate::tool::{field, Tool};

/// Finds the tool entries in a document: a list, a request body's `tools`,
/// Bedrock's `toolConfig.tools`, an MCP `tools/list` result (bare or inside a
/// JSON-RPC response), or a single entry.
pub(crate) fn tool_list(doc: &Value) -> Result<(Shape, Vec<Node<'_>>)> {
    let root = Node::root(doc);
    match doc {
        Value::Array(_) => Ok((Shape::List, root.array()?)),
        Value::Object(object) => {
            let list = if object.contains_key("tools") {
                root.get("tools")
            } else if let Some(config) = root.get("toolConfig").filter(|c| c.value.get("tools").is_some()) {
                config.get("tools")
            } else if let Some(result) = root.get("result").filter(|r| r.value.get("tools").is_some()) {
                result.get("tools")
            } else if object.contains_key("functionDeclarations") || object.contains_key("function_declarations") {
                return Ok((Shape::List, vec![root]));
            } else {
                return Ok((Shape::Single, vec![root]));
            };
            match list {
                Some(list) => Ok((Shape::List, list.array()?)),
                None => Ok((Shape::List, Vec::new())),
            }
        }
        other => Err(Error::new(
            ErrorKind::NotATool,
            format!(
                "a tool document is a tool object, a list of tools, or an object with a \"tools\" list; found {}",
                describe(other)
            ),
        )),
    }
}

/// Reads and checks an input schema found at `node` (absent: an empty object
/// schema). The root must be an object schema: a missing `type` is added, and
/// the schema must be valid JSON Schema.
pub(crate) fn read_input_schema(
    node: Option<Node<'_>>,
    at_absent: &Pointer,
    notes: &mut Notes,
) -> Result<Value> {
    let Some(node) = node else {
        notes.push(
            NoteKind::Defaulted {
                field: "inputSchema".into(),
            },
            at_absent.clone(),
            "no parameters given; the tool takes none ({\"type\": \"object\"})",
        );
        return Ok(serde_json::json!({"type": "object"}));
    };
    check_schema_value(node.value, &node.at, notes)
}

/// Checks a schema value that must describe an object (see [`read_input_schema`]).
pub(crate) fn check_schema_value(value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Value> {
    let mut schema = value.clone();
    check_schema_in_place(&mut schema, at, notes)?;
    Ok(schema)
}

/// [`check_schema_value`] on a schema the caller already owns: no copy.
pub(crate) fn check_schema_in_place(schema: &mut Value, at: &Pointer, notes: &mut Notes) -> Result<()> {
    let Some(object) = schema.as_object_mut() else {
        return Err(Error::new(
            ErrorKind::InvalidSchema,
            format!(
                "an input schema must be a JSON object, found {}",
                describe(schema)
            ),
        )
        .at(at.clone()));
    };
    match object.get("type") {
        Some(Value::String(ty)) if ty == "object" => {}
        None => {
            object.shift_insert(0, "type".into(), Value::String("object".into()));
            notes.push(
                NoteKind::Normalized { field: "type".into() },
                at.key("type"),
                "the input schema has no \"type\"; added \"type\": \"object\"",
            );
        }
        Some(Value::Array(types)) if types.iter().any(|ty| ty == "object") => {
            object.insert("type".into(), Value::String("object".into()));
            notes.push(
                NoteKind::Rewritten {
                    keyword: "type".into(),
                },
                at.key("type"),
                "an input schema describes an object of arguments; the type list was narrowed to \"object\"",
            );
        }
        Some(other) => {
            return Err(Error::new(
                ErrorKind::InvalidSchema,
                format!(
                    "the root of an input schema must be {{\"type\": \"object\"}}, found \"type\": {other}"
                ),
            )
            .at(at.key("type")));
        }
    }
    if let Some(respelled) = respell_read_tuples(schema, at, Limits::default().max_depth, notes) {
        *schema = respelled;
    }
    check_schema(schema).map_err(|violation| {
        Error::new(ErrorKind::InvalidSchema, violation.message).at(at.join(&violation.at))
    })
}

/// The canonical fields a format has no place for: every present top-level
/// field of `tool` not in `carried` gets a [`NoteKind::Dropped`] note. A
/// carried `"vendor"` means the format's own vendor fields; other formats'
/// vendor fields are noted one by one.
pub(crate) fn note_uncarried(tool: &Tool, carried: &[&str], format: Format, notes: &mut Notes) {
    debug_assert!(
        carried.iter().all(|key| field(key).is_some()),
        "{carried:?} names a field the canonical tool does not have"
    );
    for key in tool.present_keys() {
        let at = Pointer::root().key(key);
        if key == "vendor" {
            for (owner, fields) in tool.vendor.iter().flatten() {
                if owner == format.id() && carried.contains(&"vendor") {
                    continue;
                }
                for field in fields.keys() {
                    notes.push(
                        NoteKind::Dropped {
                            keyword: field.into(),
                        },
                        at.key(owner).key(field),
                        format!("{field:?} (a field of {owner}) has no place in {}", format.id()),
                    );
                }
            }
            continue;
        }
        if carried.contains(&key) || tool.holds_default(key) {
            continue;
        }
        let message = if field(key).is_some() {
            format!("{} has no place for {key:?}", format.id())
        } else {
            format!("the unknown key {key:?} has no place in {}", format.id())
        };
        notes.push(NoteKind::Dropped { keyword: key.into() }, at, message);
    }
}

/// Copies `tool`'s vendor fields for `format` into an output object; a key the
/// writer already set wins, and the vendor value is noted as dropped.
pub(crate) fn merge_vendor(tool: &Tool, format: Format, out: &mut Map<String, Value>, notes: &mut Notes) {
    let Some(fields) = tool.vendor_fields(format.id()) else {
        return;
    };
    for (key, value) in fields {
        if out.contains_key(key) {
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
                Pointer::root().key("vendor").key(format.id()).key(key),
                format!("{key:?} is already written from the canonical tool; the vendor copy was left out"),
            );
        } else {
            out.insert(key.clone(), value.clone());
        }
    }
}

/// Sorts the members of `node` that are not in `mapped` (the keys the reader
/// turned into canonical fields). A key `format` defines without a canonical
/// field (`defined`: Anthropic's `cache_control`) is returned, to store with
/// [`Tool::set_vendor_fields`] so that `format`'s writer puts it back. Any
/// other key is not `format`'s at all (a `run` beside `parameters`): writing
/// it back would make the provider refuse the entry (Gemini's and OpenAI's
/// request models forbid extra keys), so it moves to the canonical tool's
/// `extra`, which toolbridge and MCP files keep and provider formats note as
/// having no place. Each key is noted.
pub(crate) fn keep_unknown(
    node: &Node<'_>,
    mapped: &[&str],
    defined: &[&str],
    format: Format,
    extra: &mut Map<String, Value>,
    notes: &mut Notes,
) -> Map<String, Value> {
    let mut vendor = Map::new();
    for (key, value) in node.other_members(mapped) {
        let at = node.at.key(&key);
        if defined.contains(&key.as_str()) {
            notes.push(
                NoteKind::Kept {
                    key: key.as_str().into(),
                },
                at,
                format!(
                    "{key:?} has no canonical field; kept for writing {} again",
                    format.id()
                ),
            );
            vendor.insert(key, value);
        } else if extra.contains_key(&key) {
            notes.push(
                NoteKind::Dropped {
                    keyword: key.as_str().into(),
                },
                at,
                format!(
                    "{} defines no {key:?} field, and the entry has two; the first was kept",
                    format.id()
                ),
            );
        } else {
            notes.push(
                NoteKind::Kept {
                    key: key.as_str().into(),
                },
                at,
                format!(
                    "{} defines no {key:?} field; kept on the tool (toolbridge and MCP files carry it), \
                     not written to provider formats",
                    format.id()
                ),
            );
            extra.insert(key, value);
        }
    }
    vendor
}

/// Like [`merge_vendor`] for formats whose entries nest objects
/// (`{"function": {…}}`, `{"toolSpec": {…}}`): a vendor object whose key the
/// writer already set to an object is merged into it, key by key.
pub(crate) fn merge_vendor_nested(
    tool: &Tool,
    format: Format,
    out: &mut Map<String, Value>,
    notes: &mut Notes,
) {
    if let Some(fields) = tool.vendor_fields(format.id()) {
        let at = Pointer::root().key("vendor").key(format.id());
        merge_into(fields, out, &at, notes);
    }
}

fn merge_into(fields: &Map<String, Value>, out: &mut Map<String, Value>, at: &Pointer, notes: &mut Notes) {
    for (key, value) in fields {
        match (out.get_mut(key), value) {
            (None, _) => {
                out.insert(key.clone(), value.clone());
            }
            (Some(Value::Object(written)), Value::Object(inner)) => {
                merge_into(inner, written, &at.key(key), notes)
            }
            (Some(_), _) => notes.push(
                NoteKind::Dropped { keyword: key.into() },
                at.key(key),
                format!("{key:?} is already written from the canonical tool; the vendor copy was left out"),
            ),
        }
    }
}

/// The non-empty `name` member of a tool entry.
pub(crate) fn read_name(node: &Node<'_>) -> Result<String> {
    let name = node.string_field("name")?;
    if name.is_empty() {
        return Err(node.field("name")?.error("\"name\" must not be empty"));
    }
    Ok(name)
}

/// Reads an output schema: any valid JSON Schema (an object or a boolean).
pub(crate) fn read_output_schema(node: &Node<'_>) -> Result<Value> {
    if !node.value.is_object() && !node.value.is_boolean() {
        return Err(Error::new(
            ErrorKind::InvalidSchema,
            format!(
                "an output schema must be a JSON object, found {}",
                describe(node.value)
            ),
        )
        .at(node.at.clone()));
    }
    check_schema(node.value).map_err(|violation| {
        Error::new(ErrorKind::InvalidSchema, violation.message).at(node.at.join(&violation.at))
    })?;
    Ok(node.value.clone())
}

/// The `strict` flag of a target with an optional per-tool flag (OpenAI,
/// Anthropic, Bedrock, Mistral): `true` when strict mode is asked for,
/// `false` when the tool says `false`, absent otherwise.
pub(crate) fn strict_flag(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Option<bool> {
    if opts.strict_for(tool) {
        note_strict_from_options(tool, opts, notes);
        Some(true)
    } else {
        tool.strict
    }
}

/// Notes that strict mode is on because the options asked for it, not the tool.
pub(crate) fn note_strict_from_options(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) {
    if opts.strict && tool.strict != Some(true) {
        notes.push(
            NoteKind::Defaulted {
                field: "strict".into(),
            },
            Pointer::root().key("strict"),
            "wrote \"strict\": true because strict mode was asked for (--strict)",
        );
    }
}

/// Notes that a target without a per-tool strict flag (Gemini, Ollama,
/// Cohere) cannot carry the tool's `strict` or the `--strict` request;
/// `hint` says what to do instead (empty when there is nothing to do).
pub(crate) fn note_no_strict(
    tool: &Tool,
    opts: &WriteOptions,
    format: Format,
    hint: &str,
    notes: &mut Notes,
) {
    let at = Pointer::root().key("strict");
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!("; {hint}")
    };
    let message = if opts.strict_for(tool) {
        format!(
            "{} has no per-tool strict mode; the tool was written without it{hint}",
            format.id()
        )
    } else if tool.strict == Some(false) {
        format!(
            "{} has no per-tool strict flag; strict: false is its behaviour anyway",
            format.id()
        )
    } else {
        return;
    };
    notes.push(
        NoteKind::Dropped {
            keyword: "strict".into(),
        },
        at,
        message,
    );
}

/// Takes each parameter the tool's `defaults` always fill
/// ([`ParameterDefault::always_fills`](crate::tool::ParameterDefault::always_fills))
/// out of its input schema's `required`, noting it at its `defaults` entry
/// (under `defaults_at`): a parameter that has a default is optional for
/// the model, which the listing must say (`tools/list`, every writer).
pub(crate) fn unrequire_filled(tool: &mut Tool, defaults_at: &Pointer, notes: &mut Notes) {
    let Some(defaults) = &tool.defaults else {
        return;
    };
    let Some(Value::Array(required)) = tool.input_schema.get_mut("required") else {
        return;
    };
    let mut taken = Vec::new();
    required.retain(|name| {
        let filled = name
            .as_str()
            .and_then(|name| defaults.get(name))
            .is_some_and(|default| default.always_fills());
        if filled {
            taken.push(name.as_str().unwrap_or_default().to_string());
        }
        !filled
    });
    if required.is_empty() && !taken.is_empty() {
        if let Value::Object(schema) = &mut tool.input_schema {
            schema.shift_remove("required");
        }
    }
    for name in taken {
        notes.push(
            NoteKind::Rewritten {
                keyword: "required".into(),
            },
            defaults_at.key(&name),
            format!(
                "`{name}` is listed as optional, not required: the tool's default fills it when the \
                 model leaves it out"
            ),
        );
    }
}

/// In writer tests: the notes outside the lowered schemas (schema lowering
/// owns those, and its own tests check them).
#[cfg(test)]
pub(crate) fn own_notes(notes: &Notes) -> Vec<&crate::note::Note> {
    let schemas = [
        Pointer::root().key("inputSchema"),
        Pointer::root().key("outputSchema"),
    ];
    notes
        .iter()
        .filter(|note| {
            !schemas
                .iter()
                .any(|schema| note.at.starts_with(schema) && note.at != *schema)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_tool_lists_in_every_container() {
        for doc in [
            json!([{"name": "a"}]),
            json!({"tools": [{"name": "a"}]}),
            json!({"toolConfig": {"tools": [{"name": "a"}]}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "a"}]}}),
        ] {
            let (shape, list) = tool_list(&doc).unwrap();
            assert_eq!(shape, Shape::List);
            assert_eq!(list.len(), 1, "{doc}");
        }
        let single = json!({"name": "a"});
        let (shape, list) = tool_list(&single).unwrap();
        assert_eq!((shape, list[0].at.as_str()), (Shape::Single, ""));
        assert_eq!(tool_list(&json!("x")).unwrap_err().kind(), ErrorKind::NotATool);
        assert_eq!(
            tool_list(&json!({"tools": 3})).unwrap_err().pointer().as_str(),
            "/tools"
        );
    }

    #[test]
    fn input_schema_root_is_checked() {
        let mut notes = Notes::new();
        let at = Pointer::root().key("inputSchema");
        let fixed = check_schema_value(&json!({"properties": {}}), &at, &mut notes).unwrap();
        assert_eq!(fixed, json!({"type": "object", "properties": {}}));
        assert_eq!(notes.as_slice()[0].at.as_str(), "/inputSchema/type");
        let err = check_schema_value(&json!({"type": "string"}), &at, &mut notes).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidSchema);
        let err =
            check_schema_value(&json!({"type": "object", "minProperties": -1}), &at, &mut notes).unwrap_err();
        assert_eq!(err.pointer().as_str(), "/inputSchema/minProperties");
    }
}
