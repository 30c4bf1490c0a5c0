//! `gemini`: Gemini `functionDeclarations` entries with the OpenAPI 3.0
//! subset `Schema` as `parameters` (Gemini API and Vertex AI).
//!
//! A document holds `Tool` objects (`{"functionDeclarations": [...]}`, or
//! the proto's `function_declarations`) or bare declarations. Reading raises
//! the `Schema` to JSON Schema 2020-12 (lowercase types, `nullable` as a type
//! list, `defs`/`ref` as `$defs`/`$ref`, int64 strings as numbers), noting
//! every rewrite; `parametersJsonSchema` (the `gemini-json` variant) is read
//! too. Writing puts every declaration into one `Tool` object.

use serde_json::{Map, Number, Value};

use crate::codec::JsonCodec;
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared::{
    check_schema_value, keep_unknown, merge_vendor, note_no_strict, note_uncarried, read_input_schema,
    read_name, read_output_schema,
};
use crate::json::describe;
use crate::json::Node;
use crate::limits::Limits;
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::{lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: Some(expand),
    read,
    write,
    wrap,
    check_set: Some(check_set),
};

/// Most function declarations one request may carry (Vertex `Tool` docs).
const MAX_DECLARATIONS: usize = 128;

/// The `Tool` member holding function declarations, camelCase and proto names.
const DECLARATIONS: [&str; 2] = ["functionDeclarations", "function_declarations"];

/// `Tool` members holding Gemini's built-in tools, camelCase and proto names.
const BUILT_IN_TOOLS: [&str; 18] = [
    "googleSearch",
    "google_search",
    "googleSearchRetrieval",
    "google_search_retrieval",
    "codeExecution",
    "code_execution",
    "urlContext",
    "url_context",
    "retrieval",
    "computerUse",
    "computer_use",
    "googleMaps",
    "google_maps",
    "enterpriseWebSearch",
    "enterprise_web_search",
    "fileSearch",
    "file_search",
    "mcpServers",
];

/// Declaration keys that mark the JSON Schema variant (`gemini-json`).
const JSON_SCHEMA_KEYS: [&str; 4] = [
    "parametersJsonSchema",
    "parameters_json_schema",
    "responseJsonSchema",
    "response_json_schema",
];

/// Declaration keys that map to canonical fields.
const DECLARATION_FIELDS: [&str; 8] = [
    "name",
    "description",
    "parameters",
    "parametersJsonSchema",
    "parameters_json_schema",
    "response",
    "responseJsonSchema",
    "response_json_schema",
];

fn detect(entry: &Value) -> bool {
    variant(entry) == Some(Variant::OpenApi)
}

/// The `gemini-json` detector: a Gemini entry whose (first) declaration uses
/// `parametersJsonSchema` or `responseJsonSchema`.
pub(crate) fn detect_json(entry: &Value) -> bool {
    variant(entry) == Some(Variant::JsonSchema)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    OpenApi,
    JsonSchema,
}

/// Which Gemini variant an entry is in, judged by its first declaration;
/// `None` when it is not a Gemini entry.
fn variant(entry: &Value) -> Option<Variant> {
    let judge = |declaration: &Value| {
        if JSON_SCHEMA_KEYS.iter().any(|key| declaration.get(key).is_some()) {
            Variant::JsonSchema
        } else {
            Variant::OpenApi
        }
    };
    if is_tool_object(entry) {
        let first = DECLARATIONS
            .iter()
            .find_map(|key| entry.get(key))
            .and_then(Value::as_array)
            .and_then(|declarations| declarations.first());
        return Some(first.map_or(Variant::OpenApi, judge));
    }
    is_declaration(entry).then(|| judge(entry))
}

/// A `Tool` object: no `name`, and a member holding declarations or a
/// built-in tool.
fn is_tool_object(entry: &Value) -> bool {
    entry.as_object().is_some_and(|object| {
        !object.contains_key("name")
            && object
                .keys()
                .any(|key| DECLARATIONS.contains(&key.as_str()) || BUILT_IN_TOOLS.contains(&key.as_str()))
    })
}

/// A bare declaration: a string `name`, none of the other formats' marks,
/// and a declaration key (or nothing but a name and a description).
fn is_declaration(entry: &Value) -> bool {
    let Some(object) = entry.as_object() else {
        return false;
    };
    const OTHER_FORMATS: [&str; 6] = [
        "type",
        "function",
        "custom",
        "inputSchema",
        "input_schema",
        "toolSpec",
    ];
    object.get("name").is_some_and(Value::is_string)
        && !OTHER_FORMATS.iter().any(|key| object.contains_key(*key))
        && (DECLARATION_FIELDS[2..]
            .iter()
            .chain(&["behavior"])
            .any(|key| object.contains_key(*key))
            || object.keys().all(|key| key == "name" || key == "description"))
}

/// The declarations in a `Tool` object, each with its own pointer; built-in
/// tools are skipped with a note. `None` for an entry that is not a `Tool`
/// object (a bare declaration).
pub(crate) fn expand<'a>(entry: Node<'a>, notes: &mut Notes) -> Option<Result<Vec<Node<'a>>>> {
    if !is_tool_object(entry.value) {
        return None;
    }
    Some(tool_object_declarations(entry, notes))
}

fn tool_object_declarations<'a>(entry: Node<'a>, notes: &mut Notes) -> Result<Vec<Node<'a>>> {
    let mut declarations = Vec::new();
    for (key, value) in entry.object()? {
        let member = Node::new(value, entry.at.key(key));
        if DECLARATIONS.contains(&key.as_str()) {
            if key == "function_declarations" {
                note_proto_name(&member, "functionDeclarations", notes);
            }
            if !value.is_null() {
                declarations.extend(member.array()?);
            }
        } else if BUILT_IN_TOOLS.contains(&key.as_str()) {
            notes.push(
                NoteKind::Normalized { field: key.clone() },
                member.at.clone(),
                format!("{key:?} is a Gemini built-in tool, not a function declaration; skipped"),
            );
        } else {
            notes.push(
                NoteKind::Dropped { keyword: key.clone() },
                member.at.clone(),
                format!("{key:?} is not a function declaration list; left out"),
            );
        }
    }
    Ok(declarations)
}

fn note_proto_name(member: &Node<'_>, camel: &str, notes: &mut Notes) {
    let proto = member.at.tokens().last().unwrap_or_default();
    notes.push(
        NoteKind::Normalized { field: camel.into() },
        member.at.clone(),
        format!("read the proto field name {proto:?} as {camel:?}"),
    );
}

fn read(entry: Node<'_>, opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    read_declaration(entry, Format::Gemini, opts, notes)
}

/// Reads one `FunctionDeclaration`, with either `parameters` (raised to JSON
/// Schema) or `parametersJsonSchema`; unknown keys (`behavior`, …) are kept
/// as `format`'s vendor fields.
pub(crate) fn read_declaration(
    entry: Node<'_>,
    format: Format,
    opts: &ReadOptions,
    notes: &mut Notes,
) -> Result<Tool> {
    entry.object()?;
    let name = read_name(&entry)?;
    let parameters = entry.get("parameters");
    let parameters_json = camel_or_proto(&entry, "parametersJsonSchema", "parameters_json_schema", notes)?;
    let schema = match (parameters, parameters_json) {
        (Some(_), Some(json)) => {
            return Err(json.error("\"parameters\" and \"parametersJsonSchema\" exclude each other; give one"))
        }
        (Some(parameters), None) => {
            let raised = raise(&parameters, &opts.limits, notes)?;
            check_schema_value(&raised, &parameters.at, notes)?
        }
        (None, Some(json)) => check_schema_value(json.value, &json.at, notes)?,
        (None, None) => read_input_schema(None, &entry.at.key("parameters"), notes)?,
    };
    let mut tool = Tool::new(name, schema);
    tool.description = entry.opt_string("description")?;
    let response = entry.get("response");
    let response_json = camel_or_proto(&entry, "responseJsonSchema", "response_json_schema", notes)?;
    tool.output_schema = match (response, response_json) {
        (Some(_), Some(json)) => {
            return Err(json.error("\"response\" and \"responseJsonSchema\" exclude each other; give one"))
        }
        (Some(response), None) => {
            let raised = raise(&response, &opts.limits, notes)?;
            Some(read_output_schema(&Node::new(&raised, response.at.clone()))?)
        }
        (None, Some(json)) => Some(read_output_schema(&json)?),
        (None, None) => None,
    };
    tool.set_vendor_fields(
        format.id(),
        keep_unknown(&entry, &DECLARATION_FIELDS, format, notes),
    );
    Ok(tool)
}

/// The member `camel`, or its proto spelling `proto` (noted); both is an error.
fn camel_or_proto<'a>(
    entry: &Node<'a>,
    camel: &str,
    proto: &str,
    notes: &mut Notes,
) -> Result<Option<Node<'a>>> {
    match (entry.get(camel), entry.get(proto)) {
        (Some(_), Some(twice)) => Err(twice.error(format!("{camel:?} is given twice, also as {proto:?}"))),
        (Some(member), None) => Ok(Some(member)),
        (None, Some(member)) => {
            note_proto_name(&member, camel, notes);
            Ok(Some(member))
        }
        (None, None) => Ok(None),
    }
}

/// Raises a Gemini `Schema` (the OpenAPI 3.0 subset) to JSON Schema 2020-12.
/// Every rewrite is noted at its place in the input.
pub(crate) fn raise(node: &Node<'_>, limits: &Limits, notes: &mut Notes) -> Result<Value> {
    raise_schema(node.value, &node.at, 0, limits, notes)
}

/// `Schema` members given as proto field names, with their JSON names.
const PROTO_SCHEMA_NAMES: [(&str, &str); 8] = [
    ("any_of", "anyOf"),
    ("min_items", "minItems"),
    ("max_items", "maxItems"),
    ("min_length", "minLength"),
    ("max_length", "maxLength"),
    ("min_properties", "minProperties"),
    ("max_properties", "maxProperties"),
    ("property_ordering", "propertyOrdering"),
];

/// int64 members, which proto3 JSON may render as strings.
const INT64_MEMBERS: [&str; 6] = [
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
];

fn raise_schema(
    value: &Value,
    at: &Pointer,
    depth: usize,
    limits: &Limits,
    notes: &mut Notes,
) -> Result<Value> {
    if depth > limits.max_depth {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!("the schema is nested more than {} levels deep", limits.max_depth),
        )
        .at(at.clone()));
    }
    let Some(object) = value.as_object() else {
        return Err(Error::new(
            ErrorKind::InvalidSchema,
            format!("a Gemini Schema must be an object, found {}", describe(value)),
        )
        .at(at.clone()));
    };
    let mut out = Map::new();
    let mut nullable = false;
    for (given_key, child) in object {
        let child_at = at.key(given_key);
        let key = match PROTO_SCHEMA_NAMES.iter().find(|(proto, _)| proto == given_key) {
            Some((_, camel)) => {
                note_proto_name(&Node::new(child, child_at.clone()), camel, notes);
                *camel
            }
            None => given_key.as_str(),
        };
        match key {
            "type" => {
                if let Some(kind) = raise_type(child, &child_at, notes)? {
                    out.insert("type".into(), Value::String(kind));
                }
            }
            "nullable" => match child {
                Value::Bool(flag) => {
                    nullable = *flag;
                    if !flag {
                        notes.push(
                            NoteKind::Normalized {
                                field: "nullable".into(),
                            },
                            child_at,
                            "\"nullable\": false is the default; left out",
                        );
                    }
                }
                other => {
                    return Err(invalid(
                        &child_at,
                        format!("\"nullable\" must be true or false, found {}", describe(other)),
                    ))
                }
            },
            "format" if child == "enum" => notes.push(
                NoteKind::Normalized {
                    field: "format".into(),
                },
                child_at,
                "\"format\": \"enum\" only marks an enum in Gemini; left out",
            ),
            "properties" | "defs" => {
                let Some(members) = child.as_object() else {
                    return Err(invalid(
                        &child_at,
                        format!("{key:?} must be an object of schemas, found {}", describe(child)),
                    ));
                };
                let mut raised = Map::new();
                for (name, member) in members {
                    raised.insert(
                        name.clone(),
                        raise_schema(member, &child_at.key(name), depth + 1, limits, notes)?,
                    );
                }
                let key = if key == "defs" {
                    notes.push(
                        NoteKind::Normalized { field: "defs".into() },
                        child_at,
                        "Gemini \"defs\" read as JSON Schema \"$defs\"",
                    );
                    "$defs"
                } else {
                    key
                };
                out.insert(key.into(), Value::Object(raised));
            }
            "items" => {
                out.insert(
                    key.into(),
                    raise_schema(child, &child_at, depth + 1, limits, notes)?,
                );
            }
            "additionalProperties" if child.is_boolean() => {
                out.insert(key.into(), child.clone());
            }
            "additionalProperties" => {
                out.insert(
                    key.into(),
                    raise_schema(child, &child_at, depth + 1, limits, notes)?,
                );
            }
            "anyOf" => {
                let Some(branches) = child.as_array() else {
                    return Err(invalid(
                        &child_at,
                        format!("\"anyOf\" must be an array of schemas, found {}", describe(child)),
                    ));
                };
                let raised = branches
                    .iter()
                    .enumerate()
                    .map(|(index, branch)| {
                        raise_schema(branch, &child_at.index(index), depth + 1, limits, notes)
                    })
                    .collect::<Result<Vec<Value>>>()?;
                out.insert(key.into(), Value::Array(raised));
            }
            "ref" => {
                let Some(reference) = child.as_str() else {
                    return Err(invalid(
                        &child_at,
                        format!("\"ref\" must be a string, found {}", describe(child)),
                    ));
                };
                let raised = match reference.strip_prefix("#/defs/") {
                    Some(rest) => format!("#/$defs/{rest}"),
                    None => reference.to_string(),
                };
                notes.push(
                    NoteKind::Normalized { field: "ref".into() },
                    child_at,
                    format!("Gemini \"ref\": {reference:?} read as JSON Schema \"$ref\": {raised:?}"),
                );
                out.insert("$ref".into(), Value::String(raised));
            }
            "example" => {
                notes.push(
                    NoteKind::Rewritten {
                        keyword: "example".into(),
                    },
                    child_at,
                    "OpenAPI \"example\" read as JSON Schema \"examples\": [example]",
                );
                out.insert("examples".into(), Value::Array(vec![child.clone()]));
            }
            key if INT64_MEMBERS.contains(&key) => {
                out.insert(key.into(), raise_int64(key, child, &child_at, notes)?);
            }
            "minimum" | "maximum" => {
                out.insert(key.into(), raise_double(key, child, &child_at, notes)?);
            }
            key => {
                out.insert(key.into(), child.clone());
            }
        }
    }
    if nullable {
        make_nullable(&mut out, &at.key("nullable"), notes);
    }
    numeric_enum(&mut out, &at.key("enum"), notes);
    Ok(Value::Object(out))
}

fn invalid(at: &Pointer, detail: String) -> Error {
    Error::new(ErrorKind::InvalidSchema, detail).at(at.clone())
}

/// A Gemini `Type` as a JSON Schema type name; `None` for `TYPE_UNSPECIFIED`.
fn raise_type(value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Option<String>> {
    let Some(given) = value.as_str() else {
        return Err(invalid(
            at,
            format!(
                "a Gemini \"type\" is a single type name such as \"STRING\", found {}",
                describe(value)
            ),
        ));
    };
    let lower = given.to_ascii_lowercase();
    match lower.as_str() {
        "string" | "number" | "integer" | "boolean" | "array" | "object" | "null" => {
            if lower != given {
                notes.push(
                    NoteKind::Normalized { field: "type".into() },
                    at.clone(),
                    format!("type {given:?} read as {lower:?}"),
                );
            }
            Ok(Some(lower))
        }
        "type_unspecified" => {
            notes.push(
                NoteKind::Normalized { field: "type".into() },
                at.clone(),
                format!("type {given:?} means any type; left out"),
            );
            Ok(None)
        }
        _ => Err(invalid(
            at,
            format!(
                "unknown Gemini type {given:?}; expected STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT, NULL \
                 or TYPE_UNSPECIFIED"
            ),
        )),
    }
}

/// A non-negative int64 member, given as a number or (proto3 JSON) a string.
fn raise_int64(key: &str, value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Value> {
    match value {
        Value::Number(number) if number.is_u64() => Ok(value.clone()),
        Value::String(text) => match text.trim().parse::<u64>() {
            Ok(number) => {
                notes.push(
                    NoteKind::Coerced {
                        from: "string".into(),
                        to: "integer".into(),
                    },
                    at.clone(),
                    format!("{key:?} given as the string {text:?}; read as the number {number}"),
                );
                Ok(Value::Number(number.into()))
            }
            Err(_) => Err(invalid(
                at,
                format!("{key:?} must be a non-negative integer, found {text:?}"),
            )),
        },
        other => Err(invalid(
            at,
            format!("{key:?} must be a non-negative integer, found {other}"),
        )),
    }
}

/// A double member, given as a number or (proto3 JSON) a string.
fn raise_double(key: &str, value: &Value, at: &Pointer, notes: &mut Notes) -> Result<Value> {
    match value {
        Value::Number(_) => Ok(value.clone()),
        Value::String(text) => {
            let number = text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|number| json_number(number, text));
            match number {
                Some(number) => {
                    notes.push(
                        NoteKind::Coerced {
                            from: "string".into(),
                            to: "number".into(),
                        },
                        at.clone(),
                        format!("{key:?} given as the string {text:?}; read as the number {number}"),
                    );
                    Ok(Value::Number(number))
                }
                None => Err(invalid(
                    at,
                    format!("{key:?} must be a finite number, found {text:?}"),
                )),
            }
        }
        other => Err(invalid(
            at,
            format!("{key:?} must be a number, found {}", describe(other)),
        )),
    }
}

/// A JSON number for `number`, an integer when the text was one.
fn json_number(number: f64, text: &str) -> Option<Number> {
    match text.trim().parse::<i64>() {
        Ok(integer) => Some(integer.into()),
        Err(_) => Number::from_f64(number),
    }
}

/// Expresses `nullable: true` in JSON Schema: `null` joins the type (and the
/// enum, which would otherwise still refuse it), or an `anyOf` when there is
/// no type.
fn make_nullable(schema: &mut Map<String, Value>, at: &Pointer, notes: &mut Notes) {
    let mut done = Vec::new();
    if let Some(Value::String(kind)) = schema.get("type").cloned() {
        if kind != "null" {
            schema.insert(
                "type".into(),
                Value::Array(vec![Value::String(kind.clone()), Value::String("null".into())]),
            );
            done.push(format!("type [{kind:?}, \"null\"]"));
        }
    } else if let Some(Value::Array(branches)) = schema.get_mut("anyOf") {
        if !branches
            .iter()
            .any(|branch| branch.get("type").and_then(Value::as_str) == Some("null"))
        {
            branches.push(serde_json::json!({"type": "null"}));
        }
        done.push("an anyOf branch {\"type\": \"null\"}".to_string());
    }
    if let Some(Value::Array(members)) = schema.get_mut("enum") {
        if !members.contains(&Value::Null) {
            members.push(Value::Null);
        }
        done.push("null in the enum".to_string());
    }
    let message = if done.is_empty() {
        "\"nullable\": true adds nothing here: the schema allows null already; left out".to_string()
    } else {
        format!("\"nullable\": true read as {}", done.join(" and "))
    };
    notes.push(
        NoteKind::Rewritten {
            keyword: "nullable".into(),
        },
        at.clone(),
        message,
    );
}

/// Gemini enums are strings, also on INTEGER and NUMBER schemas
/// (`{"type": "INTEGER", "format": "enum", "enum": ["101", "201"]}`); in JSON
/// Schema those members must be numbers to match.
fn numeric_enum(schema: &mut Map<String, Value>, at: &Pointer, notes: &mut Notes) {
    let numeric = match schema.get("type") {
        Some(Value::String(kind)) => matches!(kind.as_str(), "integer" | "number"),
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "integer" || kind == "number"),
        _ => false,
    };
    let Some(Value::Array(members)) = schema.get_mut("enum") else {
        return;
    };
    if !numeric {
        return;
    }
    let mut coerced = 0;
    for member in members.iter_mut() {
        if let Value::String(text) = member {
            if let Some(number) = text
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|number| json_number(number, text))
            {
                *member = Value::Number(number);
                coerced += 1;
            }
        }
    }
    if coerced > 0 {
        notes.push(
            NoteKind::Coerced {
                from: "string".into(),
                to: "number".into(),
            },
            at.clone(),
            format!("{coerced} enum value(s) given as strings on a numeric schema; read as numbers"),
        );
    }
}

fn write(tool: &Tool, opts: &WriteOptions, notes: &mut Notes) -> Result<Value> {
    write_declaration(tool, opts, Format::Gemini, notes)
}

/// Writes one `FunctionDeclaration`: `parameters`/`response` in the OpenAPI
/// subset for `gemini`, `parametersJsonSchema`/`responseJsonSchema` for
/// `gemini-json`. A tool without parameters gets no parameters key.
pub(crate) fn write_declaration(
    tool: &Tool,
    opts: &WriteOptions,
    format: Format,
    notes: &mut Notes,
) -> Result<Value> {
    let (dialect, parameters_key, response_key) = if format == Format::GeminiJson {
        (Dialect::GeminiJson, "parametersJsonSchema", "responseJsonSchema")
    } else {
        (Dialect::GeminiOpenApi, "parameters", "response")
    };
    // Lowering notes are kept only if the parameters are written: when the
    // tool takes no arguments the one note below says all there is to say.
    let mut input_notes = Notes::new();
    let lowered = lower(
        &tool.input_schema,
        dialect,
        &Pointer::root().key("inputSchema"),
        &opts.limits,
        &mut input_notes,
    )?;
    let mut declaration = Map::new();
    declaration.insert("name".into(), Value::String(tool.name.clone()));
    if let Some(description) = &tool.description {
        declaration.insert("description".into(), Value::String(description.clone()));
    }
    if takes_no_arguments(&lowered.schema) {
        if tool
            .input_schema
            .as_object()
            .is_some_and(|schema| schema.len() > 1)
        {
            notes.push(
                NoteKind::Normalized {
                    field: parameters_key.into(),
                },
                Pointer::root().key("inputSchema"),
                format!("the tool takes no arguments; {parameters_key:?} left out, as Gemini expects"),
            );
        }
    } else {
        notes.extend(input_notes);
        declaration.insert(parameters_key.into(), lowered.schema);
    }
    if let Some(output) = &tool.output_schema {
        let lowered = lower(
            output,
            dialect,
            &Pointer::root().key("outputSchema"),
            &opts.limits,
            notes,
        )?;
        declaration.insert(response_key.into(), lowered.schema);
    }
    note_no_strict(
        tool,
        opts,
        format,
        "set toolConfig.functionCallingConfig.mode to VALIDATED on the request for validated calls",
        notes,
    );
    note_uncarried(
        tool,
        &[
            "name",
            "description",
            "inputSchema",
            "outputSchema",
            "strict",
            "vendor",
        ],
        format,
        notes,
    );
    merge_vendor(tool, format, &mut declaration, notes);
    Ok(Value::Object(declaration))
}

/// An object schema with no properties and nothing else that constrains the
/// arguments: Gemini wants no parameters at all for such a function.
fn takes_no_arguments(schema: &Value) -> bool {
    let Some(object) = schema.as_object() else {
        return false;
    };
    object.iter().all(|(key, value)| match key.as_str() {
        "type" => value
            .as_str()
            .is_some_and(|kind| kind.eq_ignore_ascii_case("object")),
        "properties" => value.as_object().is_some_and(Map::is_empty),
        "required" | "propertyOrdering" => value.as_array().is_some_and(Vec::is_empty),
        "additionalProperties" => value == &Value::Bool(false),
        _ => false,
    })
}

/// One `Tool` object holding every declaration, as the genai SDK sends them.
pub(crate) fn wrap(declarations: Vec<Value>) -> Value {
    if declarations.is_empty() {
        return Value::Array(Vec::new());
    }
    let mut tool = Map::new();
    tool.insert("functionDeclarations".into(), Value::Array(declarations));
    Value::Array(vec![Value::Object(tool)])
}

/// Notes more declarations than one request may carry.
pub(crate) fn check_set(declarations: &[Value], _opts: &WriteOptions, notes: &mut Notes) {
    if declarations.len() > MAX_DECLARATIONS {
        notes.push(
            NoteKind::OverLimit {
                limit: format!("{MAX_DECLARATIONS} function declarations"),
            },
            Pointer::root(),
            format!(
                "{} function declarations in one request; Gemini accepts at most {MAX_DECLARATIONS}",
                declarations.len()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::shared::own_notes;
    use crate::note::Level;
    use serde_json::json;

    fn read_value(doc: &Value) -> (Result<Tool>, Notes) {
        let mut notes = Notes::new();
        let tool = read(Node::root(doc), &ReadOptions::default(), &mut notes);
        (tool, notes)
    }

    fn write_value(tool: &Tool, opts: &WriteOptions) -> (Value, Notes) {
        let mut notes = Notes::new();
        let value = write(tool, opts, &mut notes).unwrap();
        (value, notes)
    }

    fn raised(schema: Value) -> (Result<Value>, Vec<(String, String)>) {
        let mut notes = Notes::new();
        let at = Pointer::root().key("parameters");
        let result = raise(&Node::new(&schema, at), &Limits::default(), &mut notes);
        let notes = notes
            .iter()
            .map(|note| (note.at.as_str().to_string(), note.message.clone()))
            .collect();
        (result, notes)
    }

    #[test]
    fn raises_types_nullable_and_enums() {
        let (schema, notes) = raised(json!({
            "type": "OBJECT",
            "properties": {
                "city": {"type": "STRING", "description": "City"},
                "unit": {"type": "STRING", "format": "enum", "enum": ["C", "F"], "nullable": true},
                "code": {"type": "INTEGER", "format": "enum", "enum": ["101", "201"]},
                "any": {"type": "TYPE_UNSPECIFIED"}
            },
            "required": ["city"],
            "propertyOrdering": ["city", "unit", "code", "any"]
        }));
        assert_eq!(
            schema.unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "City"},
                    "unit": {"type": ["string", "null"], "enum": ["C", "F", null]},
                    "code": {"type": "integer", "enum": [101, 201]},
                    "any": {}
                },
                "required": ["city"],
                "propertyOrdering": ["city", "unit", "code", "any"]
            })
        );
        let at: Vec<&str> = notes.iter().map(|(at, _)| at.as_str()).collect();
        assert_eq!(
            at,
            [
                "/parameters/type",
                "/parameters/properties/city/type",
                "/parameters/properties/unit/type",
                "/parameters/properties/unit/format",
                "/parameters/properties/unit/nullable",
                "/parameters/properties/code/type",
                "/parameters/properties/code/format",
                "/parameters/properties/code/enum",
                "/parameters/properties/any/type",
            ]
        );
        assert_eq!(
            notes[4].1,
            "\"nullable\": true read as type [\"string\", \"null\"] and null in the enum"
        );
    }

    #[test]
    fn raises_defs_refs_int64_strings_and_proto_names() {
        let (schema, notes) = raised(json!({
            "type": "object",
            "properties": {
                "pets": {"type": "array", "min_items": "1", "maxItems": "5", "items": {"ref": "#/defs/Pet"}},
                "owner": {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": true},
                "weight": {"type": "number", "minimum": "0.5", "example": 3}
            },
            "defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}
        }));
        assert_eq!(
            schema.unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "pets": {"type": "array", "minItems": 1, "maxItems": 5, "items": {"$ref": "#/$defs/Pet"}},
                    "owner": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                    "weight": {"type": "number", "minimum": 0.5, "examples": [3]}
                },
                "$defs": {"Pet": {"type": "object", "properties": {"name": {"type": "string"}}}}
            })
        );
        let messages: Vec<&str> = notes.iter().map(|(_, message)| message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "read the proto field name \"min_items\" as \"minItems\"",
                "\"minItems\" given as the string \"1\"; read as the number 1",
                "\"maxItems\" given as the string \"5\"; read as the number 5",
                "Gemini \"ref\": \"#/defs/Pet\" read as JSON Schema \"$ref\": \"#/$defs/Pet\"",
                "\"nullable\": true read as an anyOf branch {\"type\": \"null\"}",
                "\"minimum\" given as the string \"0.5\"; read as the number 0.5",
                "OpenAPI \"example\" read as JSON Schema \"examples\": [example]",
                "Gemini \"defs\" read as JSON Schema \"$defs\"",
            ]
        );
    }

    #[test]
    fn raising_refuses_what_is_not_a_schema() {
        let cases = [
            (json!({"type": ["STRING", "NULL"]}), "/parameters/type"),
            (json!({"type": "TEXT"}), "/parameters/type"),
            (json!({"properties": {"a": "STRING"}}), "/parameters/properties/a"),
            (json!({"minItems": "-1"}), "/parameters/minItems"),
            (json!({"maximum": "Infinity"}), "/parameters/maximum"),
            (json!({"nullable": "yes"}), "/parameters/nullable"),
            (json!({"anyOf": {"type": "STRING"}}), "/parameters/anyOf"),
        ];
        for (schema, at) in cases {
            let err = raised(schema.clone()).0.unwrap_err();
            assert_eq!(
                (err.kind(), err.pointer().as_str()),
                (ErrorKind::InvalidSchema, at),
                "{schema}"
            );
        }
        let mut deep = json!({"type": "STRING"});
        for _ in 0..200 {
            deep = json!({"type": "ARRAY", "items": deep});
        }
        assert_eq!(raised(deep).0.unwrap_err().kind(), ErrorKind::LimitExceeded);
    }

    #[test]
    fn reads_a_declaration_with_response_and_behavior() {
        let doc = json!({"name": "get_weather", "description": "Weather",
            "parameters": {"type": "OBJECT", "properties": {"city": {"type": "STRING"}}, "required": ["city"]},
            "response": {"type": "OBJECT", "properties": {"temp": {"type": "NUMBER"}}},
            "behavior": "NON_BLOCKING"});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!(
            tool.input_schema,
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]})
        );
        assert_eq!(
            tool.output_schema,
            Some(json!({"type": "object", "properties": {"temp": {"type": "number"}}}))
        );
        assert_eq!(
            tool.vendor_fields("gemini"),
            Some(json!({"behavior": "NON_BLOCKING"}).as_object().unwrap())
        );
        assert_eq!(
            notes.iter().last().unwrap().kind,
            NoteKind::Kept {
                key: "behavior".into()
            }
        );
    }

    #[test]
    fn reads_parameters_json_schema_too_but_not_both() {
        let doc =
            json!({"name": "a", "parameters_json_schema": {"type": "object", "additionalProperties": false}});
        let (tool, notes) = read_value(&doc);
        assert_eq!(tool.unwrap().input_schema, doc["parameters_json_schema"]);
        assert_eq!(
            notes.as_slice()[0].message,
            "read the proto field name \"parameters_json_schema\" as \"parametersJsonSchema\""
        );
        let both = json!({"name": "a", "parameters": {"type": "OBJECT"}, "parametersJsonSchema": {"type": "object"}});
        assert_eq!(
            read_value(&both).0.unwrap_err().pointer().as_str(),
            "/parametersJsonSchema"
        );
    }

    #[test]
    fn absent_parameters_and_missing_name() {
        let (tool, notes) = read_value(&json!({"name": "now", "description": "Current time"}));
        assert_eq!(tool.unwrap().input_schema, json!({"type": "object"}));
        assert_eq!(notes.as_slice()[0].at.as_str(), "/parameters");
        let err = read_value(&json!({"description": "x", "parameters": {}}))
            .0
            .unwrap_err();
        assert_eq!(err.detail(), "missing required field \"name\"");
        let err = read_value(&json!({"name": "a", "parameters": {"type": "STRING"}}))
            .0
            .unwrap_err();
        assert_eq!(err.pointer().as_str(), "/parameters/type");
    }

    #[test]
    fn expands_tool_objects_and_skips_built_ins() {
        let doc =
            json!({"function_declarations": [{"name": "a"}, {"name": "b"}], "googleSearch": {}, "x": 1});
        let mut notes = Notes::new();
        let nodes = expand(Node::new(&doc, Pointer::root().key("tools").index(0)), &mut notes)
            .unwrap()
            .unwrap();
        let at: Vec<&str> = nodes.iter().map(|node| node.at.as_str()).collect();
        assert_eq!(
            at,
            [
                "/tools/0/function_declarations/0",
                "/tools/0/function_declarations/1"
            ]
        );
        let levels: Vec<Level> = notes.iter().map(|note| note.level()).collect();
        assert_eq!(levels, [Level::Info, Level::Info, Level::Loss]);
        assert!(expand(Node::root(&json!({"name": "a"})), &mut notes).is_none());
        let err = expand(Node::root(&json!({"functionDeclarations": {}})), &mut notes)
            .unwrap()
            .unwrap_err();
        assert_eq!(err.pointer().as_str(), "/functionDeclarations");
    }

    #[test]
    fn detects_both_variants() {
        assert!(detect(
            &json!({"functionDeclarations": [{"name": "a", "parameters": {"type": "OBJECT"}}]})
        ));
        assert!(detect(&json!({"name": "a", "parameters": {"type": "OBJECT"}})));
        assert!(detect(&json!({"name": "a", "description": "no parameters"})));
        assert!(detect(&json!({"googleSearch": {}})));
        assert!(!detect(
            &json!({"functionDeclarations": [{"name": "a", "parametersJsonSchema": {}}]})
        ));
        assert!(detect_json(
            &json!({"functionDeclarations": [{"name": "a", "parametersJsonSchema": {}}]})
        ));
        assert!(detect_json(&json!({"name": "a", "responseJsonSchema": {}})));
        assert!(!detect(
            &json!({"type": "function", "name": "a", "parameters": {}})
        ));
        assert!(!detect(&json!({"name": "a", "inputSchema": {}})));
        assert!(!detect(&json!({"name": "a", "input_schema": {}})));
    }

    #[test]
    fn writes_declarations_and_omits_empty_parameters() {
        let mut tool = Tool::new("now", json!({"type": "object", "properties": {}}));
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(written, json!({"name": "now"}));
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(
            notes[0].kind,
            NoteKind::Normalized {
                field: "parameters".into()
            }
        );
        assert_eq!(notes[0].at.as_str(), "/inputSchema");
        tool.input_schema = json!({"type": "object"});
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(written, json!({"name": "now"}));
        assert!(own_notes(&notes).is_empty());
        tool.input_schema = json!({"type": "object", "properties": {"tz": {"type": "string"}}});
        tool.output_schema = Some(json!({"type": "string"}));
        let (written, _) = write_value(&tool, &WriteOptions::default());
        let keys: Vec<&String> = written.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "parameters", "response"]);
    }

    #[test]
    fn strict_has_no_place_and_is_noted() {
        let mut tool = Tool::new("a", json!({"type": "object"}));
        tool.strict = Some(true);
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(written, json!({"name": "a"}));
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].at.as_str(), "/strict");
        assert_eq!(
            notes[0].message,
            "gemini has no per-tool strict mode; the tool was written without it; set \
             toolConfig.functionCallingConfig.mode to VALIDATED on the request for validated calls"
        );
        tool.strict = None;
        let (_, notes) = write_value(&tool, &WriteOptions::default().with_strict(true));
        assert_eq!(
            own_notes(&notes)[0].kind,
            NoteKind::Dropped {
                keyword: "strict".into()
            }
        );
        tool.strict = Some(false);
        let (_, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(
            own_notes(&notes)[0].message,
            "gemini has no per-tool strict flag; strict: false is its behaviour anyway"
        );
    }

    #[test]
    fn vendor_fields_round_trip() {
        let doc = json!({"name": "a", "description": "d", "parameters": {"type": "object",
            "properties": {"x": {"type": "string"}}}, "behavior": "BLOCKING"});
        let tool = read_value(&doc).0.unwrap();
        let (mut written, notes) = write_value(&tool, &WriteOptions::default());
        assert!(written
            .as_object_mut()
            .unwrap()
            .shift_remove("parameters")
            .is_some());
        assert_eq!(
            written,
            json!({"name": "a", "description": "d", "behavior": "BLOCKING"})
        );
        let notes = own_notes(&notes);
        assert_eq!(notes.len(), 1, "only the type spelling: {notes:?}");
        assert_eq!(notes[0].kind, NoteKind::Normalized { field: "type".into() });
    }

    #[test]
    fn wraps_into_one_tool_object_and_checks_the_count() {
        assert_eq!(
            wrap(vec![json!({"name": "a"}), json!({"name": "b"})]),
            json!([{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}])
        );
        assert_eq!(wrap(Vec::new()), json!([]));
        let mut notes = Notes::new();
        check_set(&vec![json!({}); 129], &WriteOptions::default(), &mut notes);
        assert_eq!(notes.as_slice()[0].level(), Level::Error);
        let mut notes = Notes::new();
        check_set(&vec![json!({}); 128], &WriteOptions::default(), &mut notes);
        assert!(notes.is_empty());
    }
}
