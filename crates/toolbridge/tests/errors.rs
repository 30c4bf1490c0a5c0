//! Bad input gets a clear error naming the place, never a panic, a hang or an
//! unbounded allocation. Tables of (input, exact message), then adversarial
//! documents run through every reader and writer.

mod common;

use std::fs;

use toolbridge::{ErrorKind, Format, Limits, ReadOptions, WriteOptions};

fn read_error(text: &str, from: Option<Format>) -> String {
    let mut options = ReadOptions::default();
    if let Some(format) = from {
        options = options.with_from(format);
    }
    match toolbridge::read(text, &options) {
        Err(err) => err.to_string(),
        Ok(read) => read
            .tools
            .into_iter()
            .find_map(|tool| tool.err())
            .map(|err| err.to_string())
            .unwrap_or_else(|| panic!("{text:?} was read without error")),
    }
}

#[test]
fn document_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "invalid JSON: EOF while parsing a value (line 1, column 0)"),
        ("{\"name\": \"a\",", "invalid JSON: EOF while parsing a value (line 1, column 13)"),
        ("{\"name\": \"a\" \"x\"}", "invalid JSON: expected `,` or `}` (line 1, column 14)"),
        ("42", "not a tool definition: a tool document is a tool object, a list of tools, or an object with a \"tools\" list; found a number"),
        ("{\"tools\": {}}", "invalid tool: \"tools\" must be an array, found an object (at /tools)"),
        ("{\"hello\": 1}", "not a tool definition: found none of the known tool shapes: {\"name\", \"inputSchema\"} (MCP, toolbridge), {\"type\": \"function\", \"function\": {...}} (OpenAI, Ollama, Mistral, Cohere), {\"type\": \"function\", \"name\"} (OpenAI Responses), {\"name\", \"input_schema\"} (Anthropic), {\"functionDeclarations\": [...]} or {\"name\", \"parameters\"} (Gemini), {\"toolSpec\"} (Bedrock), {\"tool\": {\"function\": {...}}} (Syllable), {\"model_prompt\", \"metadata\"} (SkyDeck)"),
    ];
    for (input, expected) in cases {
        assert_eq!(&read_error(input, None), expected, "input {input:?}");
    }
}

#[test]
fn tool_errors_name_the_pointer_and_the_tool() {
    let cases: &[(&str, &str)] = &[
        (
            r#"[{"name": "a", "inputSchema": {"type": "object"}}, {"name": "", "inputSchema": {"type": "object"}}]"#,
            "invalid tool: must not be empty (at /1/name)",
        ),
        (
            r#"{"name": "a", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}}"#,
            "invalid tool: must be a boolean, found a string (at /annotations/readOnlyHint, tool \"a\")",
        ),
        (
            r#"{"name": "a", "inputSchema": {"type": "object", "required": "city"}}"#,
            "invalid schema: must be an array, found a string (at /inputSchema/required, tool \"a\")",
        ),
        (
            r#"{"name": "a", "inputSchema": {"type": "object"}, "run": {"kind": "command"}}"#,
            "invalid tool: missing required field \"program\" (at /run, tool \"a\")",
        ),
        (
            r#"{"name": "a", "inputSchema": {"type": "object"}, "defaults": {"x": {"transform": {"action": "replace"}}}}"#,
            "invalid tool: must be one of \"default\", \"override\", \"remove\"; found \"replace\" (at /defaults/x/transform/action, tool \"a\")",
        ),
        (
            r#"{"name": "a", "inputSchema": {"$schema": "https://example.com/dialect", "type": "object"}}"#,
            "invalid schema: unknown dialect \"https://example.com/dialect\"; supported are drafts 4, 6, 7, 2019-09 and 2020-12 (at /inputSchema/$schema, tool \"a\")",
        ),
    ];
    for (input, expected) in cases {
        assert_eq!(
            &read_error(input, Some(Format::Toolbridge)),
            expected,
            "input {input}"
        );
    }
}

#[test]
fn one_bad_tool_does_not_stop_the_others() {
    let text = r#"{"tools": [
        {"name": "good", "inputSchema": {"type": "object"}},
        {"name": "bad", "inputSchema": {"type": "string"}},
        {"name": "also_good", "inputSchema": {"type": "object"}}
    ]}"#;
    let read = toolbridge::read(text, &ReadOptions::default()).unwrap();
    let names: Vec<String> = read
        .tools
        .iter()
        .map(|tool| match tool {
            Ok(converted) => converted.value.name.clone(),
            Err(err) => format!("error at {}", err.pointer()),
        })
        .collect();
    assert_eq!(names, ["good", "error at /tools/1/inputSchema/type", "also_good"]);
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let deep = "[".repeat(100_000);
    let err = toolbridge::read(&deep, &ReadOptions::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
    assert_eq!(
        err.to_string(),
        "limit exceeded: the document is nested more than 128 levels deep (line 1, column 129)"
    );
    let shallow_limit = ReadOptions::default().with_limits(Limits::default().with_max_depth(3));
    let err = toolbridge::read(r#"{"a": {"b": {"c": {}}}}"#, &shallow_limit).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::LimitExceeded);
}

#[test]
fn size_and_count_limits() {
    let small = ReadOptions::default().with_limits(Limits::default().with_max_bytes(10));
    let err = toolbridge::read(r#"{"name": "a", "inputSchema": {}}"#, &small).unwrap_err();
    assert_eq!(
        err.to_string(),
        "limit exceeded: the input is 32 bytes; the limit is 10"
    );
    let few = ReadOptions::default().with_limits(Limits::default().with_max_tools(1));
    let err = toolbridge::read(
        r#"[{"name": "a", "inputSchema": {"type": "object"}}, {"name": "b", "inputSchema": {"type": "object"}}]"#,
        &few,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "limit exceeded: the document holds 2 tools; the limit is 1"
    );
}

/// Documents that have broken other tools: each must read to an error or to
/// tools that every writer handles, without panicking or hanging.
const ADVERSARIAL: &[&str] = &[
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#"}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "$defs": {"a": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/a"}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "properties": {"x": {"$ref": "#/$defs/b"}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "https://example.com/schema.json"}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/properties/x"}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"a/b~c": {"type": "string"}}, "required": ["a/b~c"]}}"##,
    r##"{"name": "a.b/c d", "inputSchema": {"type": "object"}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": ["string", "integer", "null"], "enum": ["a", 1, null, {"k": []}]}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"allOf": [{"not": {"type": "null"}}, {"if": {"type": "string"}, "then": {"minLength": 1}}]}}}}"##,
    r##"{"name": "a", "inputSchema": {"type": ["object", "null"]}}"##,
    r##"{"name": "\u0000\u202e", "description": "\ud83d\ude00 \" \\ \n", "inputSchema": {"type": "object"}}"##,
];

fn ref_bomb(levels: usize) -> String {
    let mut defs = vec![r#""d0": {"type": "string"}"#.to_string()];
    for level in 1..levels {
        let previous = level - 1;
        defs.push(format!(
            r##""d{level}": {{"type": "object", "properties": {{"a": {{"$ref": "#/$defs/d{previous}"}}, "b": {{"$ref": "#/$defs/d{previous}"}}}}}}"##
        ));
    }
    format!(
        r##"{{"name": "bomb", "inputSchema": {{"type": "object", "properties": {{"x": {{"$ref": "#/$defs/d{}"}}}}, "$defs": {{{}}}}}}}"##,
        levels - 1,
        defs.join(", ")
    )
}

fn deep_schema(levels: usize) -> String {
    let mut schema = r#"{"type": "string"}"#.to_string();
    for _ in 0..levels {
        schema = format!(r#"{{"type": "object", "properties": {{"n": {schema}}}}}"#);
    }
    format!(r#"{{"name": "deep", "inputSchema": {schema}}}"#)
}

fn read_and_write_everywhere(text: &str) {
    let Ok(read) = toolbridge::read(text, &ReadOptions::default()) else {
        return;
    };
    let tools: Vec<_> = read.ok_tools().cloned().collect();
    for format in Format::all() {
        for strict in [false, true] {
            let written = toolbridge::write(&tools, format, &WriteOptions::default().with_strict(strict));
            for note in written.all_notes() {
                assert!(!note.message.is_empty());
            }
            let _ = written.output().to_text();
        }
    }
}

#[test]
fn adversarial_documents_never_panic() {
    for text in ADVERSARIAL {
        read_and_write_everywhere(text);
    }
    read_and_write_everywhere(&deep_schema(60));
    read_and_write_everywhere(&deep_schema(200));
}

#[test]
fn ref_fan_out_is_bounded() {
    // 2^40 nodes if expanded naively.
    let bomb = ref_bomb(40);
    let tools = toolbridge::read(&bomb, &ReadOptions::default())
        .unwrap()
        .into_converted()
        .unwrap()
        .value;
    let started = std::time::Instant::now();
    for format in Format::all() {
        let written = toolbridge::write(&tools, format, &WriteOptions::default());
        if let Err(err) = &written.tools[0].result {
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{format}: {err}");
        }
    }
    assert!(started.elapsed().as_secs() < 30, "expansion was not bounded");
}

#[test]
fn truncated_fixtures_never_panic() {
    insta::glob!("fixtures/*/*.*", |path| {
        let text = fs::read_to_string(path).unwrap();
        let format = common::fixture_format(path);
        let boundaries: Vec<usize> = (0..text.len())
            .filter(|i| text.is_char_boundary(*i))
            .step_by(5)
            .collect();
        for cut in boundaries {
            let prefix = &text[..cut];
            let _ = toolbridge::read(prefix, &ReadOptions::default().with_from(format));
            let _ = toolbridge::read(prefix, &ReadOptions::default());
        }
    });
}
