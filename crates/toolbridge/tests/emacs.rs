//! The gptel and llm writers checked with a real Emacs (`emacs --batch`,
//! Debian's `emacs-nox`): every written form must read and load, and,
//! evaluated against stand-ins for `gptel-make-tool` and `llm-make-tool`
//! (`tests/emacs/tool_check.el`, written from gptel's and llm.el's documented
//! contract, `reference/seeds.md` §1 and §2), each tool must have the shape
//! gptel / llm.el need and must serialise, for the OpenAI, Anthropic and
//! Gemini backends, to exactly what toolbridge's own `openai`, `anthropic`
//! and `gemini` writers produce for the same canonical tool — apart from:
//!
//! - what the gptel / llm writers cannot carry, which they note: only the
//!   name, description and arguments reach the plist (a missing description
//!   is written `""`); every argument gets one type and a string
//!   description ([`as_argument`]); the argument object keeps only `properties` and
//!   `required`; `required` comes back in argument order, without names that
//!   are not properties; a `true` property schema is `{}`, a `false` one is
//!   left out; the schema keywords `name` and `optional` are left out
//!   ([`carried`]);
//! - what gptel is documented to change per backend (§1.3, [`gptel_sends`]);
//! - what llm.el is documented to change (§2.2, [`llm_sends`]);
//! - what our gemini writer changes for reasons of its own (Gemini's type
//!   spelling, lowering keywords Gemini's Schema lacks), normalised
//!   explicitly in [`gemini_expected`].

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Map, Value};
use toolbridge::{Format, Level, ReadOptions, Tool, WriteOptions};

/// The backends the harness serialises for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Backend {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Backend {
    fn key(self) -> &'static str {
        match self {
            Backend::OpenAi => "openai",
            Backend::Anthropic => "anthropic",
            Backend::Gemini => "gemini",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Package {
    Gptel,
    Llm,
}

impl Package {
    fn format(self) -> Format {
        match self {
            Package::Gptel => Format::Gptel,
            Package::Llm => Format::Llm,
        }
    }
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read_file(path: &Path, from: Format) -> Vec<Tool> {
    let text = std::fs::read_to_string(path).unwrap();
    let origin = path.file_name().unwrap().to_string_lossy().to_string();
    toolbridge::read(&text, &ReadOptions::default().with_from(from).with_origin(origin))
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()))
        .into_converted()
        .unwrap()
        .value
}

/// The canonical tools to check: the seed tools read from the gptel and llm
/// fixtures, the examples, the toolbridge fixtures whose schemas gptel can
/// express (not the ones whose arguments need the root's `$defs`), and tools
/// made for the corners of the plist syntax.
fn canonical_tools() -> Vec<Tool> {
    let mut tools = Vec::new();
    for (dir, format) in [("gptel", Format::Gptel), ("llm", Format::Llm)] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join("tests/fixtures").join(dir))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| !path.file_name().unwrap().to_string_lossy().starts_with("err_"))
            .collect();
        paths.sort();
        for path in paths {
            tools.extend(read_file(&path, format));
        }
    }
    // ellama's real tools file: 16 tool plists passed to ellama-tools-define-tool.
    tools.extend(read_file(&manifest_dir().join(ELLAMA), Format::Llm));
    let examples = manifest_dir().join("../../examples/tools");
    let fixtures = manifest_dir().join("tests/fixtures/toolbridge");
    // search_issues and recursive_tree use $refs: the Emacs writers inline them (with a note),
    // the openai and anthropic writers keep them, so their JSON differs by design.
    for name in ["delete_file", "get_weather", "summarize_text"] {
        tools.extend(read_file(
            &examples.join(format!("{name}.json")),
            Format::Toolbridge,
        ));
    }
    for name in [
        "delete_file",
        "every_field",
        "get_weather",
        "list_with_unknown_key",
        "optional_nullable",
        "summarize_text",
    ] {
        tools.extend(read_file(
            &fixtures.join(format!("{name}.json")),
            Format::Toolbridge,
        ));
    }
    let made = [
        json!({"name": "ping", "description": "No arguments.", "inputSchema": {"type": "object"}}),
        json!({
            "name": "odd_text",
            "description": "Quotes \" and ', back\\slash, \\n as text, tab\t, newline\n, bell\u{7}, é, 日本, 😀, `tick`, ?a, #'f, ;comment, (paren.",
            "inputSchema": {"type": "object", "properties": {
                "with space": {"type": "string", "description": "say \"hi\"\\n\r\nend"},
                "naïve": {"type": "integer", "description": "Ünïcödé → ✓"},
                "if": {"type": "boolean", "description": "A Lisp-looking name: nil, t, :key."},
                "semi;colon": {"type": "string", "enum": ["a \"b\"", "c\\d", "e\nf", "nil", "t", ":null"]}
            }, "required": ["if", "with space"]}
        }),
        json!({
            "name": "nested",
            "description": "Nested objects and arrays, enums, optional arguments.",
            "inputSchema": {"type": "object", "properties": {
                "filter": {"type": "object", "description": "No required list.", "properties": {
                    "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
                    "range": {"type": "object", "properties": {"from": {"type": "number"}, "to": {"type": "number"}}, "required": ["from"]}
                }},
                "rows": {"type": "array", "items": {"type": "array", "items": {"type": "object", "properties": {
                    "cell": {"type": "string", "description": "A \"cell\"."},
                    "flags": {"type": "array", "items": {"type": "boolean"}}
                }, "required": ["cell"], "additionalProperties": false}}},
                "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
                "limits": {"type": "object", "properties": {"max": {"type": "integer", "minimum": 0, "maximum": 100}}, "required": ["max"], "additionalProperties": {"type": "integer"}},
                "ratio": {"type": "number", "minimum": 0.5, "exclusiveMaximum": 1.5e300},
                "when": {"type": "string", "format": "date-time", "description": "Top-level format."},
                "deep": {"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}, "required": ["at"]}
            }, "required": ["rows", "ratio"]}
        }),
        json!({
            "name": "odd_keys",
            "description": "Control and rare characters: nul \u{0}, del \u{7f}, zero-width \u{200b}, replacement \u{fffd}, last \u{10ffff}, cr \r.",
            "inputSchema": {"type": "object", "properties": {
                "obj": {"type": "object", "properties": {
                    ":colon": {"type": "string"}, "1st": {"type": "integer"}, "?x": {"type": "string"},
                    "#x": {"type": "string"}, "a.b": {"type": "string"}, "a,b": {"type": "string"},
                    "a'b": {"type": "string"}, "a\"b": {"type": "string"}, "[x]": {"type": "string"},
                    "(x)": {"type": "string"}, "a b": {"type": "string"}, "a\\b": {"type": "string"},
                    "é": {"type": "string"}, "nil": {"type": "string"}, "t": {"type": "string"},
                    "$comment": {"type": "string"}, "x;y": {"type": "string"}, "`q`": {"type": "string"},
                    "-": {"type": "string"}, "+1": {"type": "string"}, ".5": {"type": "string"}
                }, "required": [":colon", "nil"]},
                "n": {"type": "number", "minimum": -0.5, "maximum": 1e-7, "default": 100000000000000000000.0, "multipleOf": 0.1},
                "i": {"type": "integer", "minimum": -9007199254740993_i64, "maximum": 9007199254740993_i64},
                "custom": {"type": "my-type", "x-kind": "symbol-like"},
                "spaced": {"type": "my type"}
            }, "required": ["obj"]}
        }),
        json!({
            "name": "untyped_enum",
            "description": "An argument without a type (gptel only: llm.el needs one).",
            "inputSchema": {"type": "object", "properties": {
                "mixed": {"enum": [1, "a", null, true, false, 2.5, {"k": "v"}, [1]]}
            }, "required": ["mixed"]}
        }),
        json!({
            "name": "llm_converter",
            "description": "What llm.el's converter changes inside :items and :properties.",
            "inputSchema": {"type": "object", "properties": {
                "list": {"type": "array", "items": {"type": "object", "properties": {
                    "any": {}, "maybe": {"type": "string", "default": null, "enum": ["a", null]}
                }, "required": ["maybe"]}},
                "opts": {"type": "object", "properties": {"flag": {"type": "boolean", "default": false, "const": true}}}
            }, "required": ["list"]}
        }),
        json!({
            "name": "all_optional",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": []}
        }),
        json!({
            "name": "required_out_of_order",
            "description": "required lists b before a.",
            "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}}, "required": ["b", "a"]}
        }),
        json!({
            "name": "flags",
            "description": "JSON true, false and null as values.",
            "inputSchema": {"type": "object", "properties": {
                "strict": {"type": "boolean", "default": false, "const": true},
                "empty": {"type": "string", "default": "", "examples": ["", "x"]},
                "tags": {"type": "array", "items": {"type": "string"}, "default": [], "maxItems": 3}
            }, "required": ["strict"]}
        }),
        json!({
            "name": "handled",
            "description": "An Emacs Lisp handler and confirm predicate.",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            "async": true, "confirm": {"elisp": "(lambda (path) (string-match-p \"\\\\.el\\\\'\" path))"},
            "include": "call", "category": "files",
            "run": {"kind": "action", "handler": {"elisp": "(lambda (callback path)\n  ;; a comment, and a string with \"quotes\"\n  (funcall callback (format \"%S\" (list path ?\\( `(a ,path) [1 2]))))"}}
        }),
    ];
    tools.extend(
        made.into_iter()
            .map(|tool| serde_json::from_value::<Tool>(tool).unwrap()),
    );
    // One file holds them all: names made unique here, not by the writer.
    let mut seen = std::collections::HashSet::new();
    for tool in &mut tools {
        let base = tool.name.clone();
        let mut count = 1;
        while !seen.insert(tool.name.clone()) {
            count += 1;
            tool.name = format!("{base}_{count}");
        }
    }
    tools
}

/// github s-kostyaev/ellama, `ellama-tools.el` (commit 09857e5), whole.
const ELLAMA: &str = "tests/emacs/ellama-tools.el";

#[test]
fn ellama_tools_file_is_read_as_emacs_reads_it() {
    let text = std::fs::read_to_string(manifest_dir().join(ELLAMA)).unwrap();
    let read = toolbridge::read(&text, &ReadOptions::default().with_origin("ellama-tools.el")).unwrap();
    assert_eq!(read.format, Format::Llm);
    let tools: Vec<_> = read.tools.into_iter().map(|tool| tool.unwrap()).collect();
    let names: Vec<&str> = tools.iter().map(|tool| tool.value.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "write_file",
            "append_file",
            "prepend_file",
            "directory_tree",
            "move_file",
            "edit_file",
            "shell_command",
            "grep",
            "grep_in_file",
            "now",
            "project_root",
            "ask_user",
            "count_lines",
            "lines_range",
            "agent_submit_plan",
            "agent_update_plan",
            "agent_report_result",
            // The backquoted plist ellama-tools--make-report-result-tool returns
            // (for (apply #'llm-make-tool …)): its :function closes over ,session.
            "report_result",
            "task",
        ]
    );
    let wrapped = tools
        .iter()
        .filter(|tool| {
            tool.notes.iter().any(|note| {
                note.message
                    .starts_with("read the tool plist passed to (ellama-tools-define-tool …) as a tool")
            })
        })
        .count();
    assert_eq!(wrapped, 16);
    assert_eq!(
        tools[0].value.to_value(),
        json!({"name": "read_file", "description": "Read the file FILE_NAME.",
            "inputSchema": {"type": "object", "properties": {
                "file_name": {"type": "string", "description": "File name."},
                "mode": {"type": "string", "enum": ["auto", "text", "image", "audio"],
                    "description": "Read mode: auto, text, image, or audio."}},
                "required": ["file_name"]},
            "run": {"kind": "action", "handler": {"elisp": "#'ellama-tools-read-file-tool"}}})
    );
    let report = &tools[18];
    assert_eq!(report.value.run, None);
    let task = &tools[19];
    assert_eq!(task.value.is_async, Some(true));
    let notes: Vec<String> = task
        .notes
        .iter()
        .map(|note| format!("{} {}", note.at, note.message))
        .collect();
    assert_eq!(
        notes[1],
        "/19/args/1/enum the value of :enum is computed when Emacs evaluates the backquote (,(seq--into-vector (mapcar #'car ellama-tools-subagent-roles))); toolbridge does not run Emacs Lisp, so it was left out (line 5033, column 34)"
    );
}

/// Runs the harness on `text`: its JSON output, or its error message.
fn run_emacs(text: &str, label: &str) -> std::result::Result<Vec<Value>, String> {
    let dir = std::env::temp_dir().join(format!("toolbridge-emacs-{}-{label}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(format!("{label}.el"));
    let output = dir.join(format!("{label}.json"));
    std::fs::write(&input, text).unwrap();
    let harness = manifest_dir().join("tests/emacs/tool_check.el");
    let run = Command::new("emacs")
        .arg("--batch")
        .arg("-Q")
        .arg("-l")
        .arg(&harness)
        .arg("--eval")
        .arg(format!(
            "(tool-check-main {:?} {:?})",
            input.display().to_string(),
            output.display().to_string()
        ))
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap_or_else(|err| {
            panic!(
                "cannot run emacs ({err}): the gptel and llm check needs a real Emacs; install emacs-nox \
                 (Debian: apt-get install emacs-nox)"
            )
        });
    if !run.status.success() {
        let _ = std::fs::remove_file(&input);
        let _ = std::fs::remove_dir(&dir);
        return Err(String::from_utf8_lossy(&run.stderr).to_string());
    }
    let json = std::fs::read_to_string(&output).unwrap();
    let entries: Vec<Value> = serde_json::from_str(&json)
        .unwrap_or_else(|err| panic!("the harness wrote no JSON array ({err}): {json}"));
    if let Some(real) = run_real_packages(&input, &dir, label) {
        for (stand_in, real) in entries.iter().zip(&real) {
            assert_eq!(
                stand_in, real,
                "the stand-ins of tool_check.el and the real package disagree on tool {}",
                real["name"]
            );
        }
        assert_eq!(entries.len(), real.len());
    }
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let _ = std::fs::remove_dir(&dir);
    Ok(entries)
}

/// With `TOOLBRIDGE_GPTEL_DIR` and `TOOLBRIDGE_LLM_DIR` set (checkouts of
/// github karthink/gptel and ahyatt/llm; `TOOLBRIDGE_COMPAT_DIR` for the
/// compat package that gptel needs on Emacs 28), what the real packages send
/// for the tools of `input` (`tests/emacs/real_check.el`); `None` otherwise,
/// as in CI, which cannot install them.
fn run_real_packages(input: &Path, dir: &Path, label: &str) -> Option<Vec<Value>> {
    let gptel = std::env::var_os("TOOLBRIDGE_GPTEL_DIR")?;
    let llm = std::env::var_os("TOOLBRIDGE_LLM_DIR")?;
    let output = dir.join(format!("{label}-real.json"));
    let mut command = Command::new("emacs");
    command
        .arg("--batch")
        .arg("-Q")
        .arg("-L")
        .arg(gptel)
        .arg("-L")
        .arg(llm);
    if let Some(compat) = std::env::var_os("TOOLBRIDGE_COMPAT_DIR") {
        command.arg("-L").arg(compat);
    }
    let run = command
        .arg("-l")
        .arg(manifest_dir().join("tests/emacs/real_check.el"))
        .arg("--eval")
        .arg(format!(
            "(real-check-main {:?} {:?})",
            input.display().to_string(),
            output.display().to_string()
        ))
        .env("LC_ALL", "C.UTF-8")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "the real packages refused the written {label} file: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let json = std::fs::read_to_string(&output).unwrap();
    let _ = std::fs::remove_file(&output);
    Some(serde_json::from_str(&json).unwrap())
}

/// The tool as the gptel and llm writers carry it: name, description (`""`
/// when there is none) and the argument object `{type, properties,
/// required}`, with `required` in argument order and the writers' noted
/// rewrites of property schemas.
fn carried(tool: &Tool) -> Tool {
    let empty = Map::new();
    let given = tool
        .input_schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let listed: Vec<&str> = tool
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut properties = Map::new();
    for (name, schema) in given {
        let empty = Map::new();
        let object = match schema {
            Value::Bool(true) => &empty,
            Value::Object(object) => object,
            _ => continue,
        };
        let mut object = as_argument(object);
        object.shift_remove("name");
        object.shift_remove("optional");
        properties.insert(name.clone(), Value::Object(object));
    }
    let required: Vec<Value> = properties
        .keys()
        .filter(|name| listed.contains(&name.as_str()))
        .map(|name| json!(name))
        .collect();
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    let mut out = Tool::new(tool.name.clone(), Value::Object(schema));
    out.description = Some(tool.description.clone().unwrap_or_default());
    out
}

/// A property schema as an argument plist must be, by `gptel-make-tool`'s
/// docstring (gptel-request.el): one `:type` from the seven, a string
/// `:description`. As the writers note: a nullable union is its non-null
/// branch (the outer keywords win); a real union has the nearest single type
/// (`number` for numbers, else the first branch's) and says the union in
/// its description; no type is the type the values or keywords imply, else
/// `string`; no description is the title, else `""`.
fn as_argument(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut out = schema.clone();
    let type_of = |branch: &Value| -> Option<String> {
        match branch.get("type") {
            Some(Value::String(name)) => Some(name.clone()),
            _ => implied_type(branch.as_object()?),
        }
    };
    let nearest = |types: &[Option<String>]| -> String {
        if types
            .iter()
            .all(|name| matches!(name.as_deref(), Some("integer" | "number")))
        {
            "number".into()
        } else {
            types.iter().flatten().next().cloned().unwrap_or("string".into())
        }
    };
    let mut accepts = None;
    match schema.get("type") {
        Some(Value::Array(types)) => {
            let non_null: Vec<Option<String>> = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|name| *name != "null")
                .map(|name| Some(name.to_string()))
                .collect();
            out.insert("type".into(), json!(nearest(&non_null)));
            if non_null.len() > 1 {
                accepts = Some(json!({"type": types}));
            }
        }
        Some(_) => {}
        None => {
            let combinator = ["anyOf", "oneOf"]
                .into_iter()
                .find_map(|keyword| Some((keyword, schema.get(keyword)?.as_array()?)));
            match combinator {
                Some((keyword, branches)) => {
                    out.shift_remove(keyword);
                    let non_null: Vec<&Value> = branches
                        .iter()
                        .filter(|branch| branch.get("type") != Some(&json!("null")))
                        .collect();
                    if let [branch] = non_null.as_slice() {
                        for (key, value) in branch.as_object().unwrap() {
                            out.entry(key.clone()).or_insert(value.clone());
                        }
                        out.entry("type")
                            .or_insert(json!(type_of(branch).unwrap_or("string".into())));
                    } else {
                        let types: Vec<Option<String>> =
                            non_null.iter().map(|branch| type_of(branch)).collect();
                        out.insert("type".into(), json!(nearest(&types)));
                        accepts = Some(json!({keyword: branches}));
                    }
                }
                None => {
                    out.insert(
                        "type".into(),
                        json!(implied_type(schema).unwrap_or("string".into())),
                    );
                }
            }
        }
    }
    if let Some(union) = accepts {
        let sentence = format!("Accepts {union}.");
        let description = match out.get("description").and_then(Value::as_str) {
            Some(text) if !text.is_empty() => format!("{text} {sentence}"),
            _ => sentence,
        };
        out.insert("description".into(), json!(description));
    }
    if !out.get("description").is_some_and(Value::is_string) {
        let title = schema.get("title").and_then(Value::as_str).unwrap_or_default();
        out.insert("description".into(), json!(title));
    }
    out
}

/// The type a schema's enum values or keywords imply, for the fixtures here.
fn implied_type(schema: &Map<String, Value>) -> Option<String> {
    if let Some(Value::Array(values)) = schema.get("enum") {
        let mut types: Vec<&str> = values
            .iter()
            .map(|value| match value {
                Value::String(_) => "string",
                Value::Bool(_) => "boolean",
                Value::Number(number) if number.is_i64() || number.is_u64() => "integer",
                Value::Number(_) => "number",
                Value::Null => "null",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
            })
            .collect();
        types.dedup();
        return (types.len() == 1).then(|| types[0].to_string());
    }
    let by_keyword = [
        ("properties", "object"),
        ("items", "array"),
        ("minLength", "string"),
        ("maxLength", "string"),
        ("pattern", "string"),
        ("format", "string"),
        ("minimum", "number"),
        ("maximum", "number"),
    ];
    by_keyword
        .iter()
        .find(|(keyword, _)| schema.contains_key(*keyword))
        .map(|(_, name)| name.to_string())
}

/// What toolbridge's writer for `format` makes of `tool`, with its notes.
fn written(tool: &Tool, format: Format) -> (Value, Vec<toolbridge::Note>) {
    let converted = toolbridge::write_tool(tool, format, &WriteOptions::default())
        .unwrap_or_else(|err| panic!("{format:?} cannot write {}: {err}", tool.name));
    (converted.value.as_json().unwrap().clone(), converted.notes)
}

fn object_mut<'v>(value: &'v mut Value, key: &str) -> &'v mut Map<String, Value> {
    value
        .as_object_mut()
        .and_then(|object| object.get_mut(key))
        .and_then(Value::as_object_mut)
        .unwrap_or_else(|| panic!("no object at {key:?}"))
}

/// Applies to `schema` (an argument object `{type, properties, required?}`)
/// what gptel's `gptel--parse-tools` does for `backend` (seeds.md §1.3).
fn gptel_sends(schema: &Value, backend: Backend) -> Value {
    let mut out = schema.as_object().cloned().unwrap();
    let has_args = out["properties"]
        .as_object()
        .is_some_and(|properties| !properties.is_empty());
    if !has_args {
        return match backend {
            // {type, properties: {}}: no required, no additionalProperties.
            Backend::OpenAi => json!({"type": "object", "properties": {}}),
            // Anthropic wants a schema: vconcat of no names is [].
            Backend::Anthropic => json!({"type": "object", "properties": {}, "required": []}),
            // "Gemini wants :null if the function takes no args".
            Backend::Gemini => Value::Null,
        };
    }
    // required is always sent, [] when every argument is optional.
    out.entry("required").or_insert(json!([]));
    if backend == Backend::OpenAi {
        out.insert("additionalProperties".into(), json!(false));
    }
    let properties = out["properties"].as_object_mut().unwrap();
    for property in properties.values_mut() {
        let Some(property) = property.as_object_mut() else {
            continue;
        };
        if property.get("type") == Some(&json!("object")) {
            property.entry("required").or_insert(json!([]));
            if backend == Backend::OpenAi {
                property.insert("additionalProperties".into(), json!(false));
            }
        }
        if backend == Backend::Gemini {
            if property.get("type") == Some(&json!("string")) {
                property.shift_remove("format");
            }
            let stripped = strip_additional_properties(&Value::Object(property.clone()));
            *property = stripped.as_object().unwrap().clone();
        }
    }
    Value::Object(out)
}

/// gptel's Gemini filter: `additionalProperties` removed from a schema, its
/// nested objects and the schemas of `anyOf` / `allOf`.
fn strip_additional_properties(schema: &Value) -> Value {
    let Some(object) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in object {
        if key == "additionalProperties" {
            continue;
        }
        let value = match value {
            Value::Array(items) if key == "anyOf" || key == "allOf" => {
                Value::Array(items.iter().map(strip_additional_properties).collect())
            }
            Value::Object(_) => strip_additional_properties(value),
            other => other.clone(),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

/// Applies to `schema` what llm.el's `llm-provider-utils-openai-arguments`
/// sends (seeds.md §2.2): of each argument only type, description, enum,
/// items and properties (items and properties through its converter), an
/// empty `required` left out; the same object for every provider.
fn llm_sends(schema: &Value) -> Value {
    let mut properties = Map::new();
    for (name, property) in schema["properties"].as_object().unwrap() {
        let mut sent = Map::new();
        for key in ["type", "description", "enum", "items", "properties"] {
            let Some(value) = property.get(key) else { continue };
            let value = match key {
                "items" | "properties" => llm_serializable(value),
                _ => value.clone(),
            };
            // `(when obj-properties …)`: an empty plist is nil, so no "properties".
            if key == "properties" && value.as_object().is_some_and(Map::is_empty) {
                continue;
            }
            sent.insert(key.into(), value);
        }
        properties.insert(name.clone(), Value::Object(sent));
    }
    let mut out = json!({"type": "object", "properties": properties});
    if let Some(required) = schema
        .get("required")
        .filter(|required| required.as_array().is_some_and(|names| !names.is_empty()))
    {
        out.as_object_mut()
            .unwrap()
            .insert("required".into(), required.clone());
    }
    out
}

/// `llm-provider-utils-convert-to-serializable` as documented: nested plists
/// (our objects) converted again; an empty plist is nil, sent as null; a
/// symbol is sent as its name, so `:null` (our null) as `":null"`; vectors
/// and everything else as they are. The llm writer notes both.
fn llm_serializable(value: &Value) -> Value {
    match value {
        Value::Object(object) if object.is_empty() => Value::Null,
        Value::Null => json!(":null"),
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), llm_serializable(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Lowercases every `"type": "NAME"`: our gemini writer spells types as
/// Gemini's SDK does (`"STRING"`); gptel and llm.el send JSON Schema's
/// lowercase names, which Gemini accepts too.
fn lowercase_types(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("type", Value::String(name)) => (key.clone(), json!(name.to_lowercase())),
                    _ => (key.clone(), lowercase_types(value)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(lowercase_types).collect()),
        other => other.clone(),
    }
}

/// The Gemini declaration to compare with: our gemini writer's, normalised.
///
/// `changes` is what gptel / llm.el do to the argument object for Gemini.
/// When our gemini writer only respelled the types, its parameters (types
/// lowercased) get those changes. When it also lowered the schema for
/// Gemini's OpenAPI subset (a type list or a null branch of anyOf as
/// `nullable`, keywords Gemini lacks moved into the description, …, each
/// noted by the writer), gptel and llm.el send the schema unlowered: then
/// the expected parameters are the JSON Schema before lowering (as our
/// openai writer sends it) with the same changes. Name and description are
/// our gemini writer's either way.
fn gemini_expected(
    tool: &Tool,
    openai_parameters: &Value,
    changes: impl Fn(&Value) -> Value,
) -> (Value, bool) {
    let (mut declaration, notes) = written(tool, Format::Gemini);
    let no_arguments = declaration.get("parameters").is_none();
    let lowered = notes.iter().any(|note| {
        note.at.to_string().starts_with("/inputSchema")
            && !note.message.starts_with("type names were written in uppercase")
    }) && !no_arguments;
    let parameters = if no_arguments {
        // Our gemini writer leaves "parameters" out for a tool without
        // arguments (as Gemini expects); gptel sends null, llm.el its empty
        // object: the change alone is the expectation.
        changes(openai_parameters)
    } else if lowered {
        changes(openai_parameters)
    } else {
        let written = declaration
            .get("parameters")
            .cloned()
            .unwrap_or(json!({"type": "object", "properties": {}}));
        changes(&lowercase_types(&written))
    };
    declaration
        .as_object_mut()
        .unwrap()
        .insert("parameters".into(), parameters);
    (declaration, lowered)
}

/// What gptel (resp. llm.el) must send to each backend for `tool`.
fn expected(tool: &Tool, package: Package) -> (Vec<(Backend, Value)>, bool) {
    let carried = carried(tool);
    let (mut openai, _) = written(&carried, Format::OpenAi);
    let (mut anthropic, _) = written(&carried, Format::Anthropic);
    let openai_parameters = object_mut(&mut openai, "function")["parameters"].clone();
    let (gemini, lowered) = match package {
        Package::Gptel => {
            let parameters = gptel_sends(&openai_parameters, Backend::OpenAi);
            object_mut(&mut openai, "function").insert("parameters".into(), parameters);
            let schema = gptel_sends(&anthropic["input_schema"], Backend::Anthropic);
            anthropic
                .as_object_mut()
                .unwrap()
                .insert("input_schema".into(), schema);
            gemini_expected(&carried, &openai_parameters, |schema| {
                gptel_sends(schema, Backend::Gemini)
            })
        }
        Package::Llm => {
            let parameters = llm_sends(&openai_parameters);
            object_mut(&mut openai, "function").insert("parameters".into(), parameters);
            let schema = llm_sends(&anthropic["input_schema"]);
            anthropic
                .as_object_mut()
                .unwrap()
                .insert("input_schema".into(), schema);
            gemini_expected(&carried, &openai_parameters, llm_sends)
        }
    };
    (
        vec![
            (Backend::OpenAi, openai),
            (Backend::Anthropic, anthropic),
            (Backend::Gemini, gemini),
        ],
        lowered,
    )
}

/// True when the tool has an Emacs Lisp handler, so no placeholder is written.
fn has_elisp_handler(tool: &Tool) -> bool {
    tool.to_value()
        .pointer("/run/handler/elisp")
        .is_some_and(Value::is_string)
}

fn check(package: Package, tools: &[Tool]) -> usize {
    let written = toolbridge::write(tools, package.format(), &WriteOptions::default());
    assert!(written.is_complete());
    let text = written.output().to_text();
    let label = format!("{package:?}").to_lowercase();
    let sent = run_emacs(&text, &label).unwrap_or_else(|err| {
        panic!("Emacs refused the written {label} file:\n{err}\n--- the file ---\n{text}")
    });
    assert_eq!(sent.len(), tools.len(), "{text}");
    let mut lowered_count = 0;
    for (tool, sent) in tools.iter().zip(&sent) {
        assert_eq!(sent["name"], json!(tool.name), "{sent}");
        assert_eq!(sent["package"], json!(label));
        let placeholder = format!(
            "toolbridge: tool {} has no Emacs Lisp function; define one",
            tool.name
        );
        let expected_placeholder = if has_elisp_handler(tool) {
            Value::Null
        } else {
            json!(placeholder)
        };
        assert_eq!(
            sent["placeholder"], expected_placeholder,
            "tool {}: the placeholder :function",
            tool.name
        );
        let (expected, lowered) = expected(tool, package);
        lowered_count += usize::from(lowered);
        for (backend, expected) in expected {
            let got = &sent[backend.key()];
            assert_eq!(
                got,
                &expected,
                "{label} tool {} for {backend:?}:\nEmacs sent {got}\nexpected   {expected}\n--- written ---\n{text}",
                tool.name
            );
        }
        if package == Package::Gptel {
            // gptel's documented Gemini changes, seen on what it really sent.
            assert!(
                !sent["gemini"].to_string().contains("additionalProperties"),
                "{}",
                sent["gemini"]
            );
        }
    }
    lowered_count
}

#[test]
fn gptel_output_loads_in_emacs_and_sends_what_our_writers_send() {
    let tools = canonical_tools();
    let lowered = check(Package::Gptel, &tools);
    assert!(
        lowered > 0,
        "some tools need Gemini's lowering, so that path is exercised"
    );
}

#[test]
fn llm_output_loads_in_emacs_and_sends_what_our_writers_send() {
    // llm.el needs a :type symbol on every argument (it calls symbol-name on
    // it); the llm writer says so with an error-level note at the argument's
    // "type", and such tools are checked to fail below instead.
    let tools: Vec<Tool> = canonical_tools()
        .into_iter()
        .filter(|tool| {
            let (_, notes) = written_text(tool, Format::Llm);
            !notes.iter().any(|note| {
                note.level() == Level::Error && note.message.starts_with("llm.el needs a :type symbol")
            })
        })
        .collect();
    assert!(tools.len() > 10, "{}", tools.len());
    check(Package::Llm, &tools);
}

fn written_text(tool: &Tool, format: Format) -> (String, Vec<toolbridge::Note>) {
    let converted = toolbridge::write_tool(tool, format, &WriteOptions::default()).unwrap();
    (converted.value.to_text(), converted.notes)
}

#[test]
fn the_harness_refuses_what_gptel_or_llm_cannot_take() {
    let untyped: Tool = serde_json::from_value(json!({
        "name": "untyped", "description": "d",
        "inputSchema": {"type": "object", "properties": {"u": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}
    }))
    .unwrap();
    let written = toolbridge::write(
        std::slice::from_ref(&untyped),
        Format::Llm,
        &WriteOptions::default(),
    );
    // Written with a type and a description, it loads and serialises.
    let sent = run_emacs(&written.output().to_text(), "untyped").unwrap();
    assert_eq!(
        sent[0]["openai"]["function"]["parameters"]["properties"]["u"],
        json!({"type": "string", "description": ""})
    );
    let err = run_emacs(
        "(llm-make-tool :name \"untyped\" :function #'ignore :description \"d\" :args '((:name \"u\")))",
        "untyped",
    )
    .unwrap_err();
    assert!(
        err.contains("tool \"untyped\": :args[0]: llm.el needs a :type"),
        "{err}"
    );
    let broken = [
        ("(gptel-make-tool :name \"a\" :function #'ignore :description \"d\" :args (list '(:name \"x\" :type string :description \"\" :enum (\"a\" \"b\"))))", "tool \"a\": :args[0] :enum: must be a vector"),
        ("(gptel-make-tool :name \"b\" :function #'ignore :description \"d\" :args (list '(:name \"x\" :description \"\" :type 'string)))", "tool \"b\": :args[0] :type: must be a symbol"),
        ("(gptel-make-tool :name \"c\" :function #'ignore :args nil)", "tool \"c\": :description: must be a string"),
        ("(gptel-make-tool :name \"d\" :function #'ignore :description \"d\" :args nil :include 'all)", "tool \"d\": :include: must be t, call or nil"),
        ("(gptel-make-tool :name \"e\" :function #'ignore :description \"d\" :args '((:name \"x\" :type object :description \"\" :properties (:y string))))", "tool \"e\": :args[0] :properties :y: a property's schema must be a plist"),
        ("(gptel-make-tool :name \"f\" :function #'ignore :description \"d\" :args '((:name \"x\" :type string :description \"\" :default foo)))", "tool \"f\": :args[0] :default: the symbol foo is not JSON"),
        ("(gptel-make-tool :name \"i\" :function #'ignore :description \"d\" :args '((:name \"x\" :type string)))", "tool \"i\": :args[0]: gptel-make-tool needs a string :description on every argument, found nil"),
        ("(gptel-make-tool :name \"j\" :function #'ignore :description \"d\" :args '((:name \"x\" :description \"\")))", "tool \"j\": :args[0]: gptel-make-tool needs a :type on every argument"),
        ("(gptel-make-tool :name \"g\" :description \"unterminated)", "the form at line 1 is never finished"),
        ("\n(gptel-make-tool :name \"h\" :args '(#<buffer x>))", "the form at line 2 does not read"),
    ];
    for (text, message) in broken {
        let err = run_emacs(text, "broken").unwrap_err();
        assert!(err.contains(message), "{text}\n{err}");
    }
}

#[test]
fn names_a_backend_refuses_go_through_the_reversible_name_map() {
    // gptel--parse-tools and llm.el's tool specs send :name unchanged to
    // OpenAI (^[a-zA-Z0-9_-]{1,64}$) and Gemini (a letter or _ first).
    let tools: Vec<Tool> = ["osop.init", "1st tool"]
        .into_iter()
        .map(|name| Tool::new(name, json!({"type": "object", "properties": {}})))
        .collect();
    for package in [Package::Gptel, Package::Llm] {
        let written = toolbridge::write(&tools, package.format(), &WriteOptions::default());
        let names: Vec<(&str, &str)> = written
            .tools
            .iter()
            .map(|tool| (tool.inverse.name.as_str(), tool.inverse.written_name.as_str()))
            .collect();
        assert_eq!(names, [("osop.init", "osop_init"), ("1st tool", "_1st_tool")]);
        let sent = run_emacs(&written.output().to_text(), "names").unwrap();
        let sent_names: Vec<&Value> = sent
            .iter()
            .map(|tool| &tool["openai"]["function"]["name"])
            .collect();
        assert_eq!(sent_names, [&json!("osop_init"), &json!("_1st_tool")]);
    }
}
