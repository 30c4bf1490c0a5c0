//! `gemini`: Gemini `functionDeclarations` entries with the OpenAPI 3.0
//! subset `Schema` as `parameters` (Gemini API and Vertex AI).
//!
//! A document holds `Tool` objects (`{"functionDeclarations": [...]}`, or
//! the proto's `function_declarations`) or bare declarations. Reading raises
//! the `Schema` to JSON Schema 2020-12 with [`schema::gemini::raise`], which
//! notes every rewrite; `parametersJsonSchema` (the `gemini-json` variant) is
//! read too. Writing lowers with [`schema::lower`] and puts every declaration
//! into one `Tool` object.
//!
//! [`schema::gemini::raise`]: crate::schema::gemini::raise
//! [`schema::lower`]: crate::schema::lower

use serde_json::{Map, Value};

use crate::codec::{JsonCodec, Layout};
use crate::error::Result;
use crate::format::shared::{
    check_schema_value, keep_unknown, merge_vendor, note_no_strict, note_uncarried, read_input_schema,
    read_name, read_output_schema,
};
use crate::json::{Entry, Node};
use crate::note::{NoteKind, Notes};
use crate::options::{Format, ReadOptions, WriteOptions};
use crate::pointer::Pointer;
use crate::schema::gemini::{note_proto_name, raise};
use crate::schema::{lower, Dialect};
use crate::tool::Tool;

pub(crate) const CODEC: JsonCodec = JsonCodec {
    detect: Some(detect),
    expand: Some(expand),
    read,
    write,
    layout: LAYOUT,
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
                note_proto_name(&member.at, "functionDeclarations", notes);
            }
            if !value.is_null() {
                declarations.extend(member.array()?);
            }
        } else if BUILT_IN_TOOLS.contains(&key.as_str()) {
            notes.push(
                NoteKind::Normalized { field: key.into() },
                member.at.clone(),
                format!("{key:?} is a Gemini built-in tool, not a function declaration; skipped"),
            );
        } else {
            notes.push(
                NoteKind::Dropped { keyword: key.into() },
                member.at.clone(),
                format!("{key:?} is not a function declaration list; left out"),
            );
        }
    }
    Ok(declarations)
}

fn read(owned: Entry, opts: &ReadOptions, notes: &mut Notes) -> Result<Tool> {
    let entry = owned.node();
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
    // `behavior` is the one `FunctionDeclaration` field with no canonical
    // field (google-genai `types.FunctionDeclaration`).
    let vendor = keep_unknown(
        &entry,
        &DECLARATION_FIELDS,
        &["behavior"],
        format,
        &mut tool.extra,
        notes,
    );
    tool.set_vendor_fields(format.id(), vendor);
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
            note_proto_name(&member.at, camel, notes);
            Ok(Some(member))
        }
        (None, None) => Ok(None),
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
/// Gemini's `tools` holds one tool object with every declaration.
pub(crate) const LAYOUT: Layout = Layout::InOneObject("functionDeclarations");

/// Notes more declarations than one request may carry.
pub(crate) fn check_set(declarations: &[&Value], _opts: &WriteOptions, notes: &mut Notes) {
    if declarations.len() > MAX_DECLARATIONS {
        notes.push(
            NoteKind::OverLimit {
                limit: format!("{MAX_DECLARATIONS} function declarations").into(),
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
        let tool = read(Entry::root(doc.clone()), &ReadOptions::default(), &mut notes);
        (tool, notes)
    }

    fn write_value(tool: &Tool, opts: &WriteOptions) -> (Value, Notes) {
        let mut notes = Notes::new();
        let value = write(tool, opts, &mut notes).unwrap();
        (value, notes)
    }

    #[test]
    fn a_key_gemini_does_not_define_is_not_written_into_the_declaration() {
        // google-genai's pydantic models forbid extra keys
        // (`extra='forbid'` on `_common.BaseModel`): a declaration with a
        // `run` beside its parameters fails validation in the SDK.
        let doc = json!({"name": "get_time", "description": "Time now",
            "parameters": {"type": "OBJECT", "properties": {"tz": {"type": "STRING"}}},
            "run": {"command": "date"}});
        let (tool, notes) = read_value(&doc);
        let tool = tool.unwrap();
        assert_eq!(tool.vendor_fields("gemini"), None);
        assert_eq!(tool.extra.get("run"), Some(&json!({"command": "date"})));
        assert_eq!(
            notes.iter().last().unwrap().message,
            "gemini defines no \"run\" field; kept on the tool (toolbridge and MCP files carry it), \
             not written to provider formats"
        );
        let (written, notes) = write_value(&tool, &WriteOptions::default());
        assert_eq!(written.get("run"), None);
        let run = notes.iter().find(|note| note.at.as_str() == "/run").unwrap();
        assert_eq!(run.message, "gemini has no place for \"run\"");
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
            LAYOUT.wrap(vec![json!({"name": "a"}), json!({"name": "b"})]),
            json!([{"functionDeclarations": [{"name": "a"}, {"name": "b"}]}])
        );
        assert_eq!(LAYOUT.wrap(Vec::new()), json!([]));
        let mut notes = Notes::new();
        check_set(&vec![&json!({}); 129], &WriteOptions::default(), &mut notes);
        assert_eq!(notes.as_slice()[0].level(), Level::Error);
        let mut notes = Notes::new();
        check_set(&vec![&json!({}); 128], &WriteOptions::default(), &mut notes);
        assert!(notes.is_empty());
    }
}
