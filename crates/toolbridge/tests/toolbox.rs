//! The Toolbox: every step of checking a call, with exact expected values —
//! names, repaired and restored arguments, Syllable defaults and transforms,
//! coercion, and the model-facing text of each kind of violation.

use serde_json::{json, Value};
use toolbridge::call::{ArgumentsError, ArgumentsErrorKind, ToolCall};
use toolbridge::{CheckOptions, Checked, Format, Limits, ReadOptions, Tool, Toolbox, WriteOptions};

fn tool(name: &str, schema: Value) -> Tool {
    Tool::new(name, schema)
}

fn weather() -> Tool {
    tool(
        "get_weather",
        json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}),
    )
}

fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall::new("call_1", name, arguments)
}

/// The accepted arguments and the notes' messages.
fn accepted(checked: &Checked) -> (Value, Vec<String>) {
    let accepted = checked
        .accepted()
        .unwrap_or_else(|| panic!("rejected: {}", checked.rejection().unwrap().message));
    let notes = accepted
        .notes
        .iter()
        .map(|note| format!("{} {}", note.at, note.message))
        .collect();
    (accepted.arguments.clone(), notes)
}

fn rejected(checked: &Checked) -> String {
    match checked {
        Checked::Rejected(rejection) => rejection.message.clone(),
        Checked::Accepted(accepted) => panic!("accepted: {}", accepted.arguments),
    }
}

/// The lines of a rejection for one argument set against one schema.
fn problems(schema: Value, arguments: Value) -> Vec<String> {
    let toolbox = Toolbox::new([tool("f", schema)]).unwrap();
    let checked = toolbox.check(&call("f", arguments));
    checked
        .rejection()
        .unwrap_or_else(|| panic!("accepted: {:?}", checked.accepted()))
        .violations
        .iter()
        .map(|violation| violation.message.clone())
        .collect()
}

// ---- names ---------------------------------------------------------------

#[test]
fn a_valid_call_is_accepted_unchanged() {
    let toolbox = Toolbox::new([weather()]).unwrap();
    let checked = toolbox.check(&call("get_weather", json!({"city": "Paris", "unit": "celsius"})));
    assert_eq!(
        accepted(&checked),
        (json!({"city": "Paris", "unit": "celsius"}), vec![])
    );
    assert_eq!(
        serde_json::to_value(&checked).unwrap(),
        json!({"id": "call_1", "name": "get_weather",
               "arguments": {"city": "Paris", "unit": "celsius"}, "notes": []})
    );
}

/// A call whose arguments are wrapped in one member the schema does not
/// declare fails validation (its required parameter is missing); coerced,
/// the wrapper's object is the arguments, noted (vLLM's DeepSeek V3.2
/// parser unwraps `arguments` and `input` so).
#[test]
fn arguments_wrapped_in_an_undeclared_member_are_unwrapped_when_coerced() {
    let toolbox = Toolbox::new([weather()]).unwrap();
    let checked = toolbox.check(&call("get_weather", json!({"arguments": {"city": "Paris"}})));
    assert_eq!(
        accepted(&checked),
        (
            json!({"city": "Paris"}),
            vec!["/ the arguments were wrapped in \"arguments\", which the schema does not declare; what it holds was read as the arguments".to_string()]
        )
    );
}

#[test]
fn an_unknown_tool_is_answered_with_the_closest_names() {
    let toolbox = Toolbox::new([weather(), tool("save_note", json!({"type": "object"}))]).unwrap();
    let checked = toolbox.check(&call("save_notes", json!({})));
    assert_eq!(
        rejected(&checked),
        "There is no tool named \"save_notes\" — did you mean `save_note`? \
         The tools are: `get_weather`, `save_note`."
    );
    assert_eq!(
        serde_json::to_value(checked.rejection().unwrap().violations[0].clone()).unwrap(),
        json!({"path": "", "keyword": "name", "expected": "one of `get_weather`, `save_note`",
               "got": "\"save_notes\"", "message": rejected(&checked)})
    );
    let checked = toolbox.check(&call("launch_rocket", json!({})));
    assert_eq!(
        rejected(&checked),
        "There is no tool named \"launch_rocket\". The tools are: `get_weather`, `save_note`."
    );
}

#[test]
fn a_sanitised_name_is_resolved_through_the_written_names() {
    let tools = vec![tool(
        "osop.init",
        json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    )];
    let written = toolbridge::write(&tools, Format::OpenAi, &WriteOptions::default());
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let checked = toolbox.check(&call("osop_init", json!({"path": "."})));
    assert_eq!(
        accepted(&checked),
        (
            json!({"path": "."}),
            vec![
                "/ the call named `osop_init`, the name the tool was written under; it is `osop.init`".into()
            ]
        )
    );
    assert_eq!(checked.accepted().unwrap().name, "osop.init");
}

#[test]
fn a_toolbox_reads_tools_in_any_format() {
    // Seed 000's gptel example (tests/fixtures/gptel/get_weather.el), whose
    // enum spells "farenheit": the model is shown the list as declared.
    let text = include_str!("fixtures/gptel/get_weather.el");
    let toolbox = Toolbox::read(text, &ReadOptions::default()).unwrap().value;
    let checked = toolbox.check(&call(
        "get_weather",
        json!({"location": "Oslo", "unit": "fahrenheit"}),
    ));
    assert_eq!(
        rejected(&checked),
        "The call to `get_weather` was rejected: 1 problem with its arguments.\n\
         - /unit: expected one of \"celsius\", \"farenheit\"; got \"fahrenheit\"\n\
         Expected: get_weather(location: string, unit?: \"celsius\" | \"farenheit\")"
    );
    let err = Toolbox::read("(gptel-make-tool :name", &ReadOptions::default()).unwrap_err();
    assert_eq!(err.kind(), toolbridge::ErrorKind::LispSyntax);
}

// ---- arguments -----------------------------------------------------------

#[test]
fn strict_nulls_are_absent_again_and_defaults_then_apply() {
    let mut weather = weather();
    weather.defaults = Some(
        [(
            "unit".to_string(),
            toolbridge::tool::ParameterDefault::Value(json!("celsius")),
        )]
        .into_iter()
        .collect(),
    );
    let tools = vec![weather];
    let written = toolbridge::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let checked = toolbox.check(&call("get_weather", json!({"city": "Paris", "unit": null})));
    assert_eq!(
        accepted(&checked),
        (
            json!({"city": "Paris", "unit": "celsius"}),
            vec![
                "/unit the arguments were put back into the canonical schema's shape, undoing how the tool \
                 was written as `get_weather` (at /unit)"
                    .into(),
                "/unit `unit` was not given; the tool's default \"celsius\" was used".into(),
            ]
        )
    );
    // Without the written set, a null is what the model sent: a type error.
    let toolbox = Toolbox::new([self::weather()]).unwrap();
    let checked = toolbox.check(&call("get_weather", json!({"city": "Paris", "unit": null})));
    assert_eq!(
        checked.rejection().unwrap().violations[0].message,
        "/unit: expected a string; got null"
    );
}

/// A default takes the place of the strict-mode null it replaces, so the
/// arguments keep the order the model sent; a null no default fills is
/// removed. Before a transform runs, the nulls are removed first (a
/// transform reads the arguments, and must see them absent), so a default
/// it sets comes last.
#[test]
fn a_default_takes_the_place_of_the_null_it_replaces() {
    let schema = json!({"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"},
        "unit": {"type": "string", "default": "celsius"},
        "days": {"type": "integer"},
        "lang": {"type": "string"}}});
    let tools = vec![tool("forecast", schema.clone())];
    let written = toolbridge::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let sent = json!({"city": "Paris", "unit": null, "days": 2, "lang": null});
    let checked = toolbox.check(&call("forecast", sent.clone()));
    let (arguments, notes) = accepted(&checked);
    assert_eq!(
        serde_json::to_string(&arguments).unwrap(),
        r#"{"city":"Paris","unit":"celsius","days":2}"#
    );
    assert_eq!(
        notes,
        [
            "/unit the arguments were put back into the canonical schema's shape, undoing how the tool \
             was written as `forecast` (at /unit, /lang)",
            "/unit `unit` was not given; its schema's default \"celsius\" was used",
        ]
    );

    let mut with_transform = tool("forecast", schema);
    with_transform.defaults = Some(
        serde_json::from_value(json!({"lang": {"transform": {"action": "default", "value": "fr"}}})).unwrap(),
    );
    let tools = vec![with_transform];
    let written = toolbridge::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let (arguments, notes) = accepted(&toolbox.check(&call("forecast", sent)));
    assert_eq!(
        serde_json::to_string(&arguments).unwrap(),
        r#"{"city":"Paris","days":2,"lang":"fr","unit":"celsius"}"#
    );
    assert_eq!(
        notes,
        [
            "/unit the arguments were put back into the canonical schema's shape, undoing how the tool \
             was written as `forecast` (at /unit, /lang)",
            "/lang `lang` was not given; the tool's transform set \"fr\"",
            "/unit `unit` was not given; its schema's default \"celsius\" was used",
        ]
    );
}

/// The input schema's own `default` of an optional parameter the call
/// leaves out is set (after the tool's Syllable defaults, which win), noted,
/// and validated; a required parameter's default is not a stand-in.
#[test]
fn schema_defaults_fill_omitted_optional_parameters() {
    let schema = json!({"type": "object", "required": ["city", "days"], "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "default": 3},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        "hourly": {"type": "boolean", "default": false},
        "lang": {"type": "string", "default": "en"}}});
    let mut forecast = tool("forecast", schema);
    forecast.defaults = Some(
        [(
            "lang".to_string(),
            toolbridge::tool::ParameterDefault::Value(json!("fr")),
        )]
        .into_iter()
        .collect(),
    );
    let toolbox = Toolbox::new([forecast]).unwrap();
    let checked = toolbox.check(&call(
        "forecast",
        json!({"city": "Paris", "days": 2, "hourly": true}),
    ));
    assert_eq!(
        accepted(&checked),
        (
            json!({"city": "Paris", "days": 2, "hourly": true, "lang": "fr", "unit": "celsius"}),
            vec![
                "/lang `lang` was not given; the tool's default \"fr\" was used".to_string(),
                "/unit `unit` was not given; its schema's default \"celsius\" was used".to_string(),
            ]
        )
    );
    let checked = toolbox.check(&call("forecast", json!({"city": "Paris"})));
    assert_eq!(
        checked.rejection().unwrap().violations[0].message,
        "missing required parameter `days` (integer)"
    );
    let toolbox = toolbox.with_options(CheckOptions::default().with_schema_defaults(false));
    let checked = toolbox.check(&call("forecast", json!({"city": "Paris", "days": 2})));
    assert_eq!(
        accepted(&checked).0,
        json!({"city": "Paris", "days": 2, "lang": "fr"})
    );
}

#[test]
fn a_gemini_call_of_a_free_form_object_comes_back_as_the_object() {
    // Gemini refuses an OBJECT without properties, so the writer sent the
    // map as a string of JSON and recorded it; the Toolbox decodes it.
    let tools = vec![tool(
        "run_shell",
        json!({"type": "object", "required": ["command"], "properties": {
            "command": {"type": "string"},
            "environment": {"type": "object", "additionalProperties": {"type": "string"}}}}),
    )];
    let written = toolbridge::write(&tools, Format::Gemini, &WriteOptions::default());
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {
        "name": "run_shell", "args": {"command": "make", "environment": "{\"CC\": \"clang\"}"}}}]}}]});
    let calls = Format::Gemini
        .read_calls(&response, &toolbridge::call::CallOptions::default())
        .unwrap()
        .value;
    let (arguments, notes) = accepted(&toolbox.check(&calls[0]));
    assert_eq!(
        arguments,
        json!({"command": "make", "environment": {"CC": "clang"}})
    );
    assert_eq!(
        notes,
        ["/environment the arguments were put back into the canonical schema's shape, undoing how the tool \
          was written as `run_shell` (at /environment)"]
    );
    // A string that is not JSON stays as sent, said, and fails validation.
    let bad = call("run_shell", json!({"command": "make", "environment": "CC=clang"}));
    let checked = toolbox.with_written(&written).check(&bad);
    assert_eq!(
        checked.rejection().unwrap().violations[0].message,
        "/environment: expected an object; got \"CC=clang\" (a string)"
    );
}

#[test]
fn an_openai_strict_response_comes_back_in_the_canonical_shape() {
    let tools = vec![tool(
        "weather.get",
        json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string"},
            "when": {"type": "object", "properties": {"day": {"type": "string", "format": "date"},
                                                         "hour": {"type": "integer"}}}}}),
    )];
    let written = toolbridge::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let response = json!({"choices": [{"message": {"tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "weather_get",
            "arguments": "{\"city\": \"Paris\", \"when\": {\"day\": \"2026-11-24\", \"hour\": null}}"}},
        {"id": "call_b", "type": "function", "function": {"name": "weather_get",
            "arguments": "{\"city\": null, \"when\": null}"}}]}}]});
    let calls = Format::OpenAi
        .read_calls(&response, &toolbridge::call::CallOptions::default())
        .unwrap()
        .value;
    let checked = toolbox.check_all(&calls);
    assert_eq!(
        accepted(&checked[0]),
        (
            json!({"city": "Paris", "when": {"day": "2026-11-24"}}),
            vec![
                "/ the call named `weather_get`, the name the tool was written under; it is `weather.get`".into(),
                "/when/hour the arguments were put back into the canonical schema's shape, undoing how the tool \
                 was written as `weather_get` (at /when/hour)"
                    .into(),
            ]
        )
    );
    // `city` is required, so its null is not "absent": the model is told.
    assert_eq!(
        rejected(&checked[1]),
        "The call to `weather.get` was rejected: 1 problem with its arguments.\n\
         - /city: expected a string; got null\n\
         Expected: weather.get(city: string, when?: object)"
    );
}

#[test]
fn unreadable_arguments_are_repaired_against_the_schema_or_rejected() {
    let toolbox = Toolbox::new([tool(
        "f",
        json!({"type": "object", "properties": {"days": {"type": "integer"}, "city": {"type": "string"}}}),
    )])
    .unwrap();
    let mut broken = call("f", json!({}));
    broken.arguments = Err(ArgumentsError::new(
        ArgumentsErrorKind::InvalidJson,
        "EOF while parsing",
        "{'city': 'Paris', 'days': '3',}",
    ));
    let (arguments, notes) = accepted(&toolbox.check(&broken));
    assert_eq!(arguments, json!({"city": "Paris", "days": 3}));
    assert_eq!(
        notes,
        [
            "/ 4 strings in single quotes were read as JSON strings (first at line 1, column 2)",
            "/ a comma before a closing bracket was removed (line 1, column 31)",
            "/days the string \"3\" was read as the number 3, as the schema expects an integer",
        ]
    );

    broken.arguments = Err(ArgumentsError::new(
        ArgumentsErrorKind::InvalidJson,
        "expected value",
        "city is Paris",
    ));
    assert_eq!(
        rejected(&toolbox.check(&broken)),
        "The call to `f` was rejected: 1 problem with its arguments.\n\
         - the arguments could not be read (arguments are not valid JSON: expected value; \
         no JSON object or array found in the text); send them as one JSON object\n\
         Expected: f(days?: integer, city?: string)"
    );
    assert_eq!(
        rejected(&toolbox.check(&call("f", json!([1, 2])))),
        "The call to `f` was rejected: 1 problem with its arguments.\n\
         - the arguments must be one JSON object; got [1,2] (an array)\n\
         Expected: f(days?: integer, city?: string)"
    );
}

/// Arguments cut off before their end (a token limit) are not repaired
/// into a call that runs on half an argument: the reader of the call left
/// them unread, and the Toolbox sends them back whole.
#[test]
fn arguments_cut_off_are_rejected_not_repaired() {
    let toolbox = Toolbox::new([tool(
        "write_file",
        json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}),
    )])
    .unwrap();
    let mut cut = call("write_file", json!({}));
    cut.arguments = Err(ArgumentsError::new(
        ArgumentsErrorKind::InvalidJson,
        "EOF while parsing a string",
        r#"{"path": "a.py", "content": "print('hel"#,
    ));
    let expected = "The call to `write_file` was rejected: 1 problem with its arguments.\n\
         - the arguments were cut off after 39 bytes, before they ended (the response probably \
         reached its token limit), so the call was not run; send the whole call again\n\
         Expected: write_file(path?: string, content?: string)";
    assert_eq!(rejected(&toolbox.check(&cut)), expected);
    cut.arguments = Err(ArgumentsError::new(
        ArgumentsErrorKind::Unfinished,
        "the stream ended before the provider ended this call",
        r#"{"path": "a.py", "content": "print('hel"#,
    ));
    assert_eq!(rejected(&toolbox.check(&cut)), expected);
    let Checked::Rejected(rejection) = toolbox.check(&cut) else {
        panic!("accepted")
    };
    assert_eq!(
        serde_json::to_value(&rejection.violations).unwrap(),
        json!([{"path": "", "keyword": "arguments", "expected": "a JSON object",
                "got": "39 bytes that end inside the arguments",
                "message": "the arguments were cut off after 39 bytes, before they ended (the response probably reached its token limit), so the call was not run; send the whole call again"}])
    );
}

/// Calls a raw-text reader closed at the end of the text (noted as cut)
/// are not run either; a list the text ends inside after its last call
/// cut no call, and its calls run.
#[test]
fn raw_text_calls_cut_off_are_rejected() {
    use toolbridge::text::{parse, Family};
    let toolbox = Toolbox::new([
        tool("now", json!({"type": "object"})),
        tool(
            "write_file",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}),
        ),
    ])
    .unwrap();
    let check = |text: &str, family: Family| -> Vec<String> {
        parse(text, family, None)
            .unwrap()
            .calls
            .iter()
            .map(|call| match toolbox.check(call) {
                Checked::Accepted(accepted) => format!("accepted {}", accepted.name),
                Checked::Rejected(rejection) => rejection.message,
            })
            .collect()
    };
    let cut = "The call to `write_file` was rejected: 1 problem with its arguments.\n\
        - the arguments were cut off before they ended (the response probably reached its \
        token limit), so the call was not run; send the whole call again\n\
        Expected: write_file(path?: string, content?: string)";
    let hermes = "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.py\", \"content\": \"print('hel";
    assert_eq!(check(hermes, Family::Hermes), [cut]);
    let gemma = "<|tool_call>call:write_file{path:<|\"|>a.py<|\"|>,content:<|\"|>print('hel";
    assert_eq!(check(gemma, Family::Gemma4), [cut]);
    let pythonic = "[now(), write_file(path='a.py', content='print(1)')";
    assert_eq!(
        check(pythonic, Family::Pythonic),
        ["accepted now", "accepted write_file"]
    );
    let pythonic = "[now(), write_file(path='a.py', content='print(";
    assert_eq!(check(pythonic, Family::Pythonic), ["accepted now", cut]);
}

#[test]
fn arguments_beyond_the_limits_are_rejected_without_recursion() {
    let toolbox = Toolbox::new([tool("f", json!({"type": "object"}))])
        .unwrap()
        .with_options(
            CheckOptions::default().with_limits(Limits::default().with_max_depth(16).with_max_bytes(1000)),
        );
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    let checked = toolbox.check(&call("f", json!({"a": deep})));
    assert_eq!(
        checked.rejection().unwrap().violations[0].got,
        "nested deeper than 16 levels"
    );
    // Twenty nested siblings wait to be walked at once, more than the walk
    // keeps in place; the too-deep one waits longest.
    let mut siblings = vec![deep.clone()];
    siblings.extend((0..19).map(|_| json!([[1]])));
    let checked = toolbox.check(&call("f", json!({"a": siblings})));
    assert_eq!(
        checked.rejection().unwrap().violations[0].got,
        "nested deeper than 16 levels"
    );
    let checked = toolbox.check(&call("f", json!({"a": "x".repeat(2000)})));
    assert_eq!(
        checked.rejection().unwrap().violations[0].got,
        "larger than 1000 bytes"
    );
    // Scalars only (looked at in one pass): the same depth and size as the walk counts.
    let limited = |limits: Limits| {
        Toolbox::new([tool("f", json!({"type": "object"}))])
            .unwrap()
            .with_options(CheckOptions::default().with_limits(limits))
    };
    let shallow = limited(Limits::default().with_max_depth(1));
    assert!(shallow.check(&call("f", json!({}))).is_accepted());
    assert_eq!(
        shallow
            .check(&call("f", json!({"a": 1})))
            .rejection()
            .unwrap()
            .violations[0]
            .got,
        "nested deeper than 1 levels"
    );
    // `{"a":"x"}` counts 2 for the braces, 1 + 4 for the key, 1 + 2 for the string.
    assert!(limited(Limits::default().with_max_bytes(10))
        .check(&call("f", json!({"a": "x"})))
        .is_accepted());
    assert_eq!(
        limited(Limits::default().with_max_bytes(9))
            .check(&call("f", json!({"a": "x"})))
            .rejection()
            .unwrap()
            .violations[0]
            .got,
        "larger than 9 bytes"
    );
    // A huge misspelt key gets no suggestion, and no quadratic work.
    let toolbox = Toolbox::new([weather()]).unwrap();
    let key = "c".repeat(100_000);
    let checked = toolbox.check(&call("get_weather", json!({key: "Paris"})));
    assert!(rejected(&checked).starts_with("The call to `get_weather` was rejected: 1 problem"));
}

// ---- Syllable defaults and transforms (seed 003) ---------------------------

/// The examples of Syllable's `ToolDefinition` docs (syllable-sdk-typescript,
/// `docs/models/components/tooldefinition.md` at 0a3e214e, seed 003), on a
/// tool read as Syllable.
fn syllable(defaults: Value) -> Toolbox {
    let definition = json!({"type": "endpoint",
        "tool": {"type": "function", "function": {"name": "find_hospital", "description": "Find a hospital.",
            "parameters": {"type": "object", "properties": {
                "city": {"type": "string"}, "hospital": {"type": "string"},
                "name": {"type": "string"}, "hello": {"type": "string"}}}}},
        "endpoint": {"url": "https://example.com/hospitals", "method": "get", "argument_location": "query"},
        "defaults": defaults});
    let read = toolbridge::read(
        &definition.to_string(),
        &ReadOptions::default().with_from(Format::Syllable),
    )
    .unwrap();
    let tools: Vec<Tool> = read.tools.into_iter().map(|tool| tool.unwrap().value).collect();
    Toolbox::new(tools).unwrap()
}

fn run(toolbox: &Toolbox, arguments: Value) -> (Value, Vec<String>) {
    accepted(&toolbox.check(&call("find_hospital", arguments)))
}

#[test]
fn syllable_plain_default() {
    let toolbox = syllable(json!({"hospital": "Queens Hospital"}));
    assert_eq!(
        run(&toolbox, json!({"city": "Queens"})),
        (
            json!({"city": "Queens", "hospital": "Queens Hospital"}),
            vec![
                "/hospital `hospital` was not given; the tool's default \"Queens Hospital\" was used".into()
            ]
        )
    );
    assert_eq!(
        run(&toolbox, json!({"hospital": "Elmhurst"})),
        (json!({"hospital": "Elmhurst"}), vec![])
    );
}

#[test]
fn syllable_remove() {
    let toolbox = syllable(json!({"hospital": {"transform": {"action": "remove"}}}));
    assert_eq!(
        run(&toolbox, json!({"city": "Queens", "hospital": "Elmhurst"})),
        (
            json!({"city": "Queens"}),
            vec!["/hospital `hospital` (\"Elmhurst\") was removed by the tool's transform".into()]
        )
    );
    assert_eq!(
        run(&toolbox, json!({"city": "Queens"})),
        (json!({"city": "Queens"}), vec![])
    );
}

#[test]
fn syllable_format_from_other_parameters() {
    let toolbox = syllable(json!({"hello": {"transform": {"format": "Hello, {name}!"}}}));
    assert_eq!(
        run(&toolbox, json!({"name": "Ada"})),
        (
            json!({"name": "Ada", "hello": "Hello, Ada!"}),
            vec!["/hello `hello` was not given; the tool's transform set \"Hello, Ada!\"".into()]
        )
    );
    // `default` is the default action: a given value stays, an empty one is filled.
    assert_eq!(
        run(&toolbox, json!({"name": "Ada", "hello": "Hi"})),
        (json!({"name": "Ada", "hello": "Hi"}), vec![])
    );
    assert_eq!(
        run(&toolbox, json!({"name": "Ada", "hello": ""})),
        (
            json!({"name": "Ada", "hello": "Hello, Ada!"}),
            vec!["/hello `hello` was filled in by the tool's transform: \"\" became \"Hello, Ada!\"".into()]
        )
    );
    // A missing field is Python's KeyError: the transform is not applied, and says so.
    assert_eq!(
        run(&toolbox, json!({})),
        (
            json!({}),
            vec![
                "/hello the transform of `hello` was not applied: its format \"Hello, {name}!\" failed: \
                  `name` is not a parameter"
                    .into()
            ]
        )
    );
    let toolbox = syllable(json!({"hello": {"transform": {"format": "{{literal}} {name!r}"}}}));
    assert_eq!(
        run(&toolbox, json!({"name": "Ada"})).0,
        json!({"name": "Ada", "hello": "{literal} 'Ada'"})
    );
}

#[test]
fn syllable_conditional_override() {
    let toolbox = syllable(json!({"city": {"transform": {
        "when": {"operator": "eq", "key": "city", "value": "Bronx"},
        "action": "override", "format": "The {city}"}}}));
    assert_eq!(
        run(&toolbox, json!({"city": "Bronx"})),
        (
            json!({"city": "The Bronx"}),
            vec![
                "/city `city` was overridden by the tool's transform: \"Bronx\" became \"The Bronx\"".into()
            ]
        )
    );
    assert_eq!(
        run(&toolbox, json!({"city": "Queens"})),
        (json!({"city": "Queens"}), vec![])
    );
    assert_eq!(run(&toolbox, json!({})), (json!({}), vec![]));
}

#[test]
fn syllable_literal_value_and_override_of_a_missing_parameter() {
    let toolbox = syllable(json!({"hospital": {"transform": {"action": "override", "value": "General"}}}));
    assert_eq!(
        run(&toolbox, json!({"hospital": "Elmhurst"})),
        (
            json!({"hospital": "General"}),
            vec!["/hospital `hospital` was overridden by the tool's transform: \"Elmhurst\" became \"General\"".into()]
        )
    );
    assert_eq!(
        run(&toolbox, json!({})),
        (
            json!({"hospital": "General"}),
            vec!["/hospital `hospital` was not given; the tool's transform set \"General\"".into()]
        )
    );
}

#[test]
fn defaults_apply_in_declared_order_and_see_each_other() {
    let toolbox = syllable(json!({
        "name": "Ada",
        "hello": {"transform": {"format": "Hello, {name}!"}},
        "city": {"transform": {"when": {"key": "hello", "value": "Hello, Ada!"}, "value": "London"}}}));
    assert_eq!(
        run(&toolbox, json!({})).0,
        json!({"name": "Ada", "hello": "Hello, Ada!", "city": "London"})
    );
}

#[test]
fn a_format_expands_within_the_limits() {
    let mut hospital = syllable(json!({"hello": {"transform": {"format": "{name}{name}{name}{name}"}}}))
        .tools()
        .next()
        .unwrap()
        .clone();
    hospital.name = "find_hospital".into();
    let toolbox = Toolbox::new([hospital])
        .unwrap()
        .with_options(CheckOptions::default().with_limits(Limits::default().with_max_bytes(1000)));
    let (arguments, notes) = run(&toolbox, json!({"name": "x".repeat(300)}));
    assert_eq!(arguments, json!({"name": "x".repeat(300)}));
    assert_eq!(
        notes,
        ["/hello the transform of `hello` was not applied: its format \"{name}{name}{name}{name}\" failed: \
          the formatted value would be longer than 1000 bytes"]
    );
}

#[test]
fn a_transform_that_cannot_apply_is_noted() {
    let mut hospital = syllable(json!({})).tools().next().unwrap().clone();
    hospital.defaults = Some(
        [(
            "city".to_string(),
            serde_json::from_value(
                json!({"transform": {"when": {"key": "city", "value": "x", "operator": "ne"},
                "value": "y"}}),
            )
            .unwrap(),
        )]
        .into_iter()
        .collect(),
    );
    let toolbox = Toolbox::new([hospital]).unwrap();
    assert_eq!(
        run(&toolbox, json!({"city": "z"})),
        (
            json!({"city": "z"}),
            vec![
                "/city the transform of `city` was not applied: its condition's operator `ne` is not `eq`, \
                  the only one Syllable defines"
                    .into()
            ]
        )
    );
}

#[test]
fn static_parameters_are_set_after_validation() {
    let mut closed = tool(
        "search",
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false}),
    );
    closed.static_parameters = Some(
        serde_json::from_value(json!([
            {"name": "sources", "type": "dataSourceList", "default": ["faq"]},
            {"name": "api_key", "type": "string", "required": true}
        ]))
        .unwrap(),
    );
    let toolbox = Toolbox::new([closed]).unwrap();
    assert_eq!(
        accepted(&toolbox.check(&call("search", json!({"q": "hours"})))),
        (
            json!({"q": "hours", "sources": ["faq"]}),
            vec![
                "/sources the static parameter `sources` was set to [\"faq\"]".into(),
                "/api_key the static parameter `api_key` is required but has no configured value; \
                 the host must set it before the call runs"
                    .into(),
            ]
        )
    );
}

// ---- coercion --------------------------------------------------------------

fn coercible() -> Toolbox {
    Toolbox::new([tool(
        "f",
        json!({"type": "object", "properties": {
            "days": {"type": "integer"}, "metric": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "unit": {"enum": ["celsius", "fahrenheit"]}, "code": {"type": "string"}}}),
    )])
    .unwrap()
}

#[test]
fn coercion_fits_plain_intent_and_notes_it() {
    let (arguments, notes) = accepted(&coercible().check(&call(
        "f",
        json!({"days": "5", "metric": "true", "tags": "red", "unit": "Celsius", "code": "12341234"}),
    )));
    assert_eq!(
        arguments,
        json!({"days": 5, "metric": true, "tags": ["red"], "unit": "celsius", "code": "12341234"})
    );
    assert_eq!(
        notes,
        [
            "/days the string \"5\" was read as the number 5, as the schema expects an integer",
            "/metric the string \"true\" was read as true, as the schema expects a boolean",
            "/tags the value was wrapped in an array, as the schema expects an array",
            "/unit \"Celsius\" was read as \"celsius\", the one allowed value it matches",
        ]
    );
}

#[test]
fn coercion_never_goes_string_ward_and_can_be_turned_off() {
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {"code": {"type": "string"}}}),
            json!({"code": 12341234})
        ),
        ["/code: expected a string; got 12341234 (a number)"]
    );
    let strict = coercible().with_options(CheckOptions::default().with_coerce(false));
    assert_eq!(
        rejected(&strict.check(&call("f", json!({"days": "5"})))),
        "The call to `f` was rejected: 1 problem with its arguments.\n\
         - /days: expected an integer; got \"5\" (a string)\n\
         Expected: f(days?: integer, metric?: boolean, tags?: string[], unit?: \"celsius\" | \"fahrenheit\", \
         code?: string)"
    );
}

// ---- violations, one kind at a time ----------------------------------------

#[test]
fn every_violation_is_listed_with_the_signature() {
    let toolbox = Toolbox::new([tool(
        "get_weather",
        json!({"type": "object", "required": ["location", "days"], "properties": {
            "location": {"type": "string"}, "days": {"type": "integer"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}),
    )])
    .unwrap();
    let checked = toolbox.check(&call(
        "get_weather",
        json!({"locaton": "Paris", "unit": "kelvin", "days": 3}),
    ));
    assert_eq!(
        rejected(&checked),
        "The call to `get_weather` was rejected: 3 problems with its arguments.\n\
         - missing required parameter `location` (string)\n\
         - /unit: expected one of \"celsius\", \"fahrenheit\"; got \"kelvin\"\n\
         - unknown parameter `locaton` — did you mean `location`?\n\
         Expected: get_weather(location: string, days: integer, unit?: \"celsius\" | \"fahrenheit\")"
    );
    let violations = serde_json::to_value(&checked.rejection().unwrap().violations).unwrap();
    assert_eq!(
        violations,
        json!([
            {"path": "/location", "keyword": "required", "expected": "string", "got": "nothing",
             "message": "missing required parameter `location` (string)"},
            {"path": "/unit", "keyword": "enum", "expected": "one of \"celsius\", \"fahrenheit\"",
             "got": "\"kelvin\"", "message": "/unit: expected one of \"celsius\", \"fahrenheit\"; got \"kelvin\""},
            {"path": "/locaton", "keyword": "unknownParameter", "expected": "`location`", "got": "`locaton`",
             "message": "unknown parameter `locaton` — did you mean `location`?"}
        ])
    );
}

#[test]
fn an_undeclared_argument_is_a_note_unless_forbidden_or_a_near_miss() {
    let toolbox = Toolbox::new([weather()]).unwrap();
    assert_eq!(
        accepted(&toolbox.check(&call("get_weather", json!({"city": "Paris", "verbose": true})))),
        (
            json!({"city": "Paris", "verbose": true}),
            vec!["/verbose `verbose` is not a declared parameter; it was passed on as sent".into()]
        )
    );
    let closed = json!({"type": "object", "additionalProperties": false,
        "properties": {"location": {"type": "string"}, "unit": {"type": "string"}}});
    assert_eq!(
        problems(closed.clone(), json!({"locaton": "Paris"})),
        ["unknown parameter `locaton` — did you mean `location`?"]
    );
    assert_eq!(
        problems(closed, json!({"verbose": true})),
        ["unknown parameter `verbose`; the parameters are `location`, `unit`"]
    );
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {"filter": {"type": "object", "additionalProperties": false,
                "properties": {"from": {"type": "string"}}}}}),
            json!({"filter": {"form": "x"}})
        ),
        ["/filter: unknown property `form` — did you mean `from`?"]
    );
}

#[test]
fn type_const_and_required_messages() {
    assert_eq!(
        problems(
            json!({"type": "object", "required": ["a", "b"], "properties": {
                "a": {"type": "integer"}, "b": {"type": ["string", "null"]}, "c": {"const": "v1"},
                "d": {"type": "object", "required": ["x"], "properties": {"x": {"type": "number"}}}}}),
            json!({"a": "x", "c": "v2", "d": {}})
        ),
        [
            "missing required parameter `b` (string | null)",
            "/a: expected an integer; got \"x\" (a string)",
            "/c: expected exactly \"v1\"; got \"v2\"",
            "/d: missing required property `x` (number)",
        ]
    );
}

#[test]
fn bound_messages() {
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {
                "n": {"type": "integer", "minimum": 1, "maximum": 10},
                "m": {"type": "number", "exclusiveMinimum": 0},
                "s": {"type": "string", "minLength": 3},
                "t": {"type": "string", "maxLength": 2},
                "l": {"type": "array", "maxItems": 1},
                "k": {"type": "array", "minItems": 2, "uniqueItems": true},
                "p": {"type": "number", "multipleOf": 5}}}),
            json!({"n": 11, "m": 0, "s": "ab", "t": "abc", "l": [1, 2], "k": [1, 1], "p": 7})
        ),
        [
            "/n: expected at most 10; got 11",
            "/m: expected more than 0; got 0",
            "/s: expected at least 3 characters; got \"ab\" (2 characters)",
            "/t: expected at most 2 characters; got \"abc\" (3 characters)",
            "/l: expected at most 1 item; got 2 items",
            "/k: expected items that are all different; got [1,1] (an item repeats)",
            "/p: expected a multiple of 5; got 7",
        ]
    );
}

#[test]
fn pattern_and_format_messages() {
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {
                "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "email": {"type": "string", "format": "email"},
                "day": {"type": "string", "format": "date"}}}),
            json!({"code": "abc", "email": "nobody", "day": "2024-13-01"})
        ),
        [
            "/code: expected a string matching the pattern ^[A-Z]{3}$; got \"abc\"",
            "/email: expected a valid email; got \"nobody\"",
            "/day: expected a valid date; got \"2024-13-01\"",
        ]
    );
}

#[test]
fn structural_messages() {
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {
                "ids": {"type": "array", "minItems": 2, "contains": {"type": "integer"}},
                "meta": {"type": "object", "minProperties": 1, "propertyNames": {"pattern": "^[a-z]+$"}},
                "mode": {"not": {"const": "unsafe"}},
                "legacy": false}}),
            json!({"ids": ["a"], "meta": {"Bad": 1}, "mode": "unsafe", "legacy": 1})
        ),
        [
            "/ids: expected at least 2 items; got 1 item",
            "/ids: expected an array with at least one item matching `contains`; got [\"a\"]",
            "/meta: the name \"Bad\" is not allowed: expected a string matching the pattern ^[a-z]+$",
            "/mode: expected a value that does not match the `not` schema; got \"unsafe\"",
            "/legacy: not allowed here; got 1",
        ]
    );
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {"m": {"type": "object", "minProperties": 2}}}),
            json!({"m": {"a": 1}})
        ),
        ["/m: expected at least 2 members; got 1 member"]
    );
}

#[test]
fn a_rejection_in_json() {
    let toolbox = Toolbox::new([weather()]).unwrap();
    let checked = toolbox.check(&call("get_weather", json!({"city": 5})));
    assert_eq!(
        serde_json::to_value(&checked).unwrap(),
        json!({"id": "call_1", "name": "get_weather",
            "rejection": "The call to `get_weather` was rejected: 1 problem with its arguments.\n\
                          - /city: expected a string; got 5 (a number)\n\
                          Expected: get_weather(city: string, unit?: \"celsius\" | \"fahrenheit\")",
            "violations": [{"path": "/city", "keyword": "type", "expected": "a string", "got": "5 (a number)",
                            "message": "/city: expected a string; got 5 (a number)"}],
            "notes": []})
    );
}

#[test]
fn an_optional_value_says_null_would_do_instead_of_listing_its_branches() {
    // What schemars writes for `Option<Unit>` and Pydantic for `Unit | None`.
    let schema = json!({"type": "object", "properties": {
        "unit": {"anyOf": [{"type": "string", "enum": ["celsius", "fahrenheit"]}, {"type": "null"}]},
        "range": {"anyOf": [{"type": "object", "properties": {"from": {"type": "string"}},
                             "required": ["from"]}, {"type": "null"}]}}});
    assert_eq!(
        problems(schema.clone(), json!({"unit": "kelvin"})),
        ["/unit: expected one of \"celsius\", \"fahrenheit\", or null; got \"kelvin\""]
    );
    let toolbox = Toolbox::new([tool("f", schema.clone())]).unwrap();
    let checked = toolbox.check(&call("f", json!({"unit": "kelvin"})));
    let violation = &checked.rejection().unwrap().violations[0];
    assert_eq!(
        (
            violation.keyword.as_str(),
            violation.expected.as_str(),
            violation.got.as_str()
        ),
        (
            "enum",
            "one of \"celsius\", \"fahrenheit\", or null",
            "\"kelvin\""
        )
    );
    assert_eq!(
        problems(schema.clone(), json!({"range": {}})),
        ["/range: missing required property `from` (string) (/range may also be null)"]
    );
    // A value of no branch's type still lists them all.
    assert_eq!(
        problems(schema, json!({"unit": 5})),
        ["/unit: expected \"celsius\" | \"fahrenheit\" | null; got 5 (a number)"]
    );
}

#[test]
fn any_of_names_the_closest_branch_and_why_it_failed() {
    let schema = json!({"type": "object", "properties": {"filters": {"type": "object", "properties": {
        "airlines": {"anyOf": [{"type": "string", "enum": ["UA", "AA"]},
                               {"type": "array", "items": {"type": "string"}}]}}}}});
    assert_eq!(
        problems(schema.clone(), json!({"filters": {"airlines": "DL"}})),
        ["/filters/airlines: expected \"UA\" | \"AA\" | string[]; got \"DL\" (a string) \
          (closest: \"UA\" | \"AA\", which failed: /filters/airlines: expected one of \"UA\", \"AA\"; got \"DL\")"]
    );
    assert_eq!(
        problems(schema, json!({"filters": {"airlines": 5}})),
        ["/filters/airlines: expected \"UA\" | \"AA\" | string[]; got 5 (a number)"]
    );
    assert_eq!(
        problems(
            json!({"type": "object", "properties": {"n": {"oneOf": [{"type": "integer"}, {"type": "number"}]}}}),
            json!({"n": 1})
        ),
        ["/n: expected a value matching exactly one of the alternatives; got 1 (a number), which matches several"]
    );
}

#[test]
fn a_long_list_of_problems_is_cut_in_the_message_but_kept_in_the_violations() {
    let properties: serde_json::Map<String, Value> = (0..30)
        .map(|i| (format!("p{i}"), json!({"type": "integer"})))
        .collect();
    let arguments: serde_json::Map<String, Value> = (0..30).map(|i| (format!("p{i}"), json!("x"))).collect();
    let toolbox = Toolbox::new([tool("f", json!({"type": "object", "properties": properties}))])
        .unwrap()
        .with_options(CheckOptions::default().with_coerce(false));
    let checked = toolbox.check(&call("f", Value::Object(arguments)));
    let rejection = checked.rejection().unwrap();
    assert_eq!(rejection.violations.len(), 30);
    assert!(
        rejection
            .message
            .contains("\n- … and 10 more\nExpected: f(p0?: integer,"),
        "{}",
        rejection.message
    );
    assert!(
        rejection.message.ends_with(", … 6 more)"),
        "{}",
        rejection.message
    );
}

#[test]
fn a_tool_whose_schema_does_not_compile_is_an_error_at_build_time() {
    let err = Toolbox::new([tool(
        "f",
        json!({"type": "object", "properties": {"a": {"pattern": "("}}}),
    )])
    .unwrap_err();
    assert_eq!(err.kind(), toolbridge::ErrorKind::InvalidSchema);
    assert_eq!(err.tool(), Some("f"));
    let err = Toolbox::new([weather(), weather()]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid tool: two tools are named \"get_weather\" (tool \"get_weather\")"
    );
}

// ---- properties ------------------------------------------------------------

mod properties {
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};
    use toolbridge::call::{ArgumentsError, ArgumentsErrorKind, ToolCall};
    use toolbridge::{Checked, Tool, Toolbox};

    fn schema() -> Value {
        json!({"type": "object", "required": ["city"], "properties": {
            "city": {"type": "string", "minLength": 1},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "day": {"type": "string", "format": "date"},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "at": {"anyOf": [{"type": "string"}, {"type": "object", "additionalProperties": false,
                "required": ["lat"], "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}}]},
            "greeting": {"type": "string"}}})
    }

    fn toolbox() -> Toolbox {
        let mut tool = Tool::new("weather", schema());
        tool.defaults = Some(
            serde_json::from_value(json!({
                "unit": "celsius",
                "greeting": {"transform": {"format": "Hello, {city}! {tags[0]} {at!r}"}},
                "city": {"transform": {"when": {"key": "city", "value": "Bronx"}, "action": "override",
                    "format": "The {city}"}}}))
            .unwrap(),
        );
        tool.static_parameters = Some(
            serde_json::from_value(
                json!([{"name": "sources", "type": "dataSourceList", "default": ["faq"]}]),
            )
            .unwrap(),
        );
        Toolbox::new([tool]).unwrap()
    }

    fn key() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(vec![
                "city", "unit", "days", "day", "tags", "at", "greeting", "sources", "citty", "unti", "lat"
            ])
            .prop_map(str::to_string),
            "[a-zA-Z_{}\\[\\]!]{0,12}",
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            (-1e6f64..1e6).prop_map(Value::from),
            prop::sample::select(vec![
                "Bronx",
                "Paris",
                "Celsius",
                "5",
                "true",
                "2024-02-30",
                "2024-02-03",
                ""
            ])
            .prop_map(Value::from),
            "\\PC{0,12}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec((key(), inner), 0..4)
                    .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
            ]
        })
    }

    fn arguments() -> impl Strategy<Value = Value> {
        prop::collection::vec((key(), value()), 0..6)
            .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>()))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Accepted arguments fit the schema (static parameters aside) and
        /// checking them again changes nothing; a rejection lists every
        /// violation and ends with the signature.
        #[test]
        fn checked_calls_fit_or_say_why(arguments in arguments()) {
            let toolbox = toolbox();
            let validator = jsonschema::validator_for(&schema()).unwrap();
            match toolbox.check(&ToolCall::new("c", "weather", arguments)) {
                Checked::Accepted(accepted) => {
                    let mut canonical = accepted.arguments.clone();
                    canonical.as_object_mut().unwrap().remove("sources");
                    prop_assert!(validator.is_valid(&canonical), "{canonical}");
                    let again = toolbox.check(&ToolCall::new("c", "weather", accepted.arguments.clone()));
                    prop_assert_eq!(&again.accepted().unwrap().arguments, &accepted.arguments);
                }
                Checked::Rejected(rejection) => {
                    prop_assert!(!rejection.violations.is_empty());
                    prop_assert!(rejection.message.starts_with("The call to `weather` was rejected: "));
                    prop_assert!(rejection.message.ends_with(toolbox.signature("weather").unwrap()));
                    for violation in rejection.violations.iter().take(20) {
                        prop_assert!(rejection.message.contains(&violation.message));
                    }
                }
            }
        }

        /// Any text as unreadable arguments, and any name, is answered without a panic.
        #[test]
        fn any_text_and_name_is_answered(raw in "\\PC{0,64}", name in "\\PC{0,16}") {
            let toolbox = toolbox();
            let mut call = ToolCall::new("c", "weather", json!({}));
            call.arguments = Err(ArgumentsError::new(ArgumentsErrorKind::InvalidJson, "", raw));
            let _ = toolbox.check(&call);
            let checked = toolbox.check(&ToolCall::new("c", name.clone(), json!({})));
            if name != "weather" {
                prop_assert_eq!(&checked.rejection().unwrap().violations[0].keyword, "name");
            }
        }
    }
}

#[test]
fn a_toolbox_is_shared_across_threads() {
    fn shareable<T: Send + Sync>(_: &T) {}
    let toolbox = Toolbox::new([weather()]).unwrap();
    shareable(&toolbox);
    std::thread::scope(|scope| {
        let handle = scope.spawn(|| {
            toolbox
                .check(&call("get_weather", json!({"city": "Oslo"})))
                .is_accepted()
        });
        assert!(handle.join().unwrap());
    });
}
