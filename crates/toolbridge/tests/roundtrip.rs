//! Round trips: random canonical tools → each format → back.
//!
//! The property (pandoc's HTML reader property, made exact): every place where
//! the tool that comes back differs from the tool that went in is covered by a
//! note the writer made, at that place or an ancestor of it. For the
//! lossless formats (toolbridge, mcp) the tool must come back equal.

mod common;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolbridge::call::ToolCall;
use toolbridge::{Format, Note, Pointer, ReadOptions, Tool, Toolbox, WriteOptions};

fn round_trip(tool: &Tool, format: Format, strict: bool) -> Result<(), TestCaseError> {
    let written = toolbridge::write(
        std::slice::from_ref(tool),
        format,
        &WriteOptions::default().with_strict(strict),
    );
    let only = &written.tools[0];
    let converted = match &only.result {
        Ok(converted) => converted,
        // A tool the format cannot hold at all is an error, not a silent loss.
        Err(_) => return Ok(()),
    };
    let text = converted.value.to_text();
    let read = toolbridge::read(&text, &ReadOptions::default().with_from(format))
        .map_err(|err| TestCaseError::fail(format!("{format}: output does not read back: {err}\n{text}")))?;
    let back = match read.tools.into_iter().next() {
        Some(Ok(back)) => back.value,
        Some(Err(err)) => return Err(TestCaseError::fail(format!("{format}: {err}\n{text}"))),
        None => {
            return Err(TestCaseError::fail(format!(
                "{format}: no tool came back\n{text}"
            )))
        }
    };
    let mut notes: Vec<Note> = converted.notes.clone();
    notes.extend(written.notes.iter().cloned());
    if matches!(format, Format::Toolbridge | Format::Mcp) {
        prop_assert_eq!(&back, tool, "{} is lossless", format);
    }
    let missing = common::unexplained(tool, &back, &notes);
    prop_assert!(
        missing.is_empty(),
        "{}{}: changed without a note at {:?}\nwent in: {}\ncame back: {}\nnotes:\n{}",
        format,
        if strict { " (strict)" } else { "" },
        missing.iter().map(Pointer::as_str).collect::<Vec<_>>(),
        serde_json::to_string(tool).unwrap(),
        serde_json::to_string(&back).unwrap(),
        common::note_lines(&notes)
    );
    Ok(())
}

fn text() -> impl Strategy<Value = String> + Clone {
    "[a-zA-Z0-9 .,:'\"\\\\\n!?()é😀-]{1,40}"
}

fn word() -> impl Strategy<Value = String> + Clone {
    "[a-z][a-z0-9_]{0,8}"
}

fn with_description(schema: Value, description: Option<String>) -> Value {
    match (schema, description) {
        (Value::Object(mut object), Some(description)) => {
            object.insert("description".into(), json!(description));
            Value::Object(object)
        }
        (schema, _) => schema,
    }
}

fn leaf_schema() -> impl Strategy<Value = Value> + Clone {
    let described = |strategy: BoxedStrategy<Value>| {
        (strategy, proptest::option::of(text()))
            .prop_map(|(schema, description)| with_description(schema, description))
    };
    prop_oneof![
        described(
            (
                proptest::option::of(1u32..5),
                proptest::option::of(prop_oneof![Just("date-time"), Just("email")])
            )
                .prop_map(|(min_length, format)| {
                    let mut schema = json!({"type": "string"});
                    if let Some(min_length) = min_length {
                        schema["minLength"] = json!(min_length);
                    }
                    if let Some(format) = format {
                        schema["format"] = json!(format);
                    }
                    schema
                })
                .boxed()
        ),
        described(
            (proptest::option::of(-5i64..5), proptest::option::of(10i64..20))
                .prop_map(|(minimum, maximum)| {
                    let mut schema = json!({"type": "integer"});
                    if let Some(minimum) = minimum {
                        schema["minimum"] = json!(minimum);
                    }
                    if let Some(maximum) = maximum {
                        schema["maximum"] = json!(maximum);
                    }
                    schema
                })
                .boxed()
        ),
        described(Just(json!({"type": "number"})).boxed()),
        described(Just(json!({"type": "boolean"})).boxed()),
        described(
            proptest::collection::btree_set(word(), 1..4)
                .prop_map(|values| json!({"type": "string", "enum": values}))
                .boxed()
        ),
        described(Just(json!({"type": ["string", "null"]})).boxed()),
        described(
            (word(),)
                .prop_map(|(default,)| json!({"type": "string", "default": default}))
                .boxed()
        ),
    ]
}

fn object_schema(inner: impl Strategy<Value = Value> + Clone) -> impl Strategy<Value = Value> + Clone {
    proptest::collection::btree_map(word(), (inner, any::<bool>()), 0..4).prop_map(|properties| {
        let required: Vec<&String> = properties
            .iter()
            .filter(|(_, (_, required))| *required)
            .map(|(name, _)| name)
            .collect();
        let mut schema = json!({"type": "object"});
        if !properties.is_empty() {
            let props: Map<String, Value> = properties
                .iter()
                .map(|(name, (schema, _))| (name.clone(), schema.clone()))
                .collect();
            schema["properties"] = Value::Object(props);
        }
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        schema
    })
}

fn property_schema() -> impl Strategy<Value = Value> + Clone {
    leaf_schema().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            object_schema(inner),
        ]
    })
}

fn run() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"kind": "action"})),
        Just(json!({"kind": "action", "handler": {"elisp": "#'my-tool-fn", "r": "my_tool"}})),
        Just(
            json!({"kind": "endpoint", "url": "https://api.example.com/x/{id}", "method": "post",
            "argumentLocation": "body", "timeout": 12.5})
        ),
        Just(json!({"kind": "command", "program": "tool-bin", "args": ["--json"]})),
        Just(json!({"kind": "prompt", "template": "Say {{x}}"})),
        Just(json!({"kind": "context", "result": {"ok": true}})),
    ]
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        prop_oneof![word(), "[a-z][a-zA-Z0-9_.-]{0,70}"],
        proptest::option::of(text()),
        proptest::option::of(text()),
        object_schema(property_schema()),
        proptest::option::of((
            proptest::option::of(text()),
            proptest::option::of(any::<bool>()),
            proptest::option::of(any::<bool>()),
        )),
        proptest::option::of(any::<bool>()),
        proptest::option::of((
            any::<bool>(),
            prop_oneof![Just("all"), Just("call"), Just("none")],
            word(),
        )),
        proptest::option::of(run()),
        proptest::option::of((word(), text())),
    )
        .prop_map(
            |(name, title, description, input_schema, annotations, strict, gptel, run, metadata)| {
                let mut tool = json!({"name": name, "inputSchema": input_schema});
                if let Some(title) = title {
                    tool["title"] = json!(title);
                }
                if let Some(description) = description {
                    tool["description"] = json!(description);
                }
                if let Some((title, read_only, open_world)) = annotations {
                    let mut hints = json!({});
                    if let Some(title) = title {
                        hints["title"] = json!(title);
                    }
                    if let Some(read_only) = read_only {
                        hints["readOnlyHint"] = json!(read_only);
                    }
                    if let Some(open_world) = open_world {
                        hints["openWorldHint"] = json!(open_world);
                    }
                    tool["annotations"] = hints;
                }
                if let Some(strict) = strict {
                    tool["strict"] = json!(strict);
                }
                if let Some((is_async, include, category)) = gptel {
                    tool["async"] = json!(is_async);
                    tool["include"] = json!(include);
                    tool["category"] = json!(category);
                    tool["confirm"] = json!(!is_async);
                }
                if let Some(run) = run {
                    tool["run"] = run;
                }
                if let Some((version, notes)) = metadata {
                    tool["metadata"] = json!({"version": version, "usageNotes": notes});
                }
                serde_json::from_value(tool).expect("generated tools are valid")
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn every_format_round_trips_or_says_why(tool in tool()) {
        for format in Format::all() {
            round_trip(&tool, format, false)?;
            round_trip(&tool, format, true)?;
        }
    }
}

#[test]
fn the_examples_round_trip_through_every_format() {
    insta::glob!("fixtures/toolbridge/*.json", |path| {
        if common::is_error_fixture(path) {
            return;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for tool in toolbridge::read(&text, &ReadOptions::default())
            .unwrap()
            .into_converted()
            .unwrap()
            .value
        {
            for format in Format::all() {
                for strict in [false, true] {
                    if let Err(err) = round_trip(&tool, format, strict) {
                        panic!("{}: {err}", path.display());
                    }
                }
            }
        }
    });
}

// Arguments: a value valid under the canonical schema, sent as the model
// would send it under the written schema (each recorded rewrite applied
// forward), comes back equal through the written tool's inverse.

/// Where `tokens` (with `*` and `**`) lead below `value`, visited children
/// first, each given to `visit` with its parent and key.
fn at_places(value: &mut Value, tokens: &[String], visit: &mut dyn FnMut(&mut Map<String, Value>, &str)) {
    let Some((first, rest)) = tokens.split_first() else {
        return;
    };
    if first == "**" {
        match value {
            Value::Object(members) => members
                .values_mut()
                .for_each(|child| at_places(child, tokens, visit)),
            Value::Array(items) => items.iter_mut().for_each(|item| at_places(item, tokens, visit)),
            _ => {}
        }
        at_places(value, rest, visit);
        return;
    }
    match value {
        Value::Object(members) if rest.is_empty() => visit(members, first),
        Value::Object(members) => {
            if let Some(child) = members.get_mut(first.as_str()) {
                at_places(child, rest, visit);
            }
        }
        Value::Array(items) if first == "*" && rest.is_empty() => {
            // An encoded array item: wrap each in a one-key map to reuse `visit`.
            for item in items.iter_mut() {
                let mut holder = Map::new();
                holder.insert("*".into(), item.take());
                visit(&mut holder, "*");
                *item = holder.remove("*").unwrap_or(Value::Null);
            }
        }
        Value::Array(items) if first == "*" => items.iter_mut().for_each(|item| at_places(item, rest, visit)),
        _ => {}
    }
}

/// The arguments as the model sends them for a tool written with `rewrites`.
fn as_sent(arguments: &Value, rewrites: &[toolbridge::Rewrite]) -> Value {
    let mut sent = arguments.clone();
    for rewrite in rewrites {
        if let toolbridge::Rewrite::Nested { key } = rewrite {
            sent = json!({ key.as_str(): sent });
        }
    }
    // Outer places first: where union branches record both a value and
    // places inside it, the model sends one of them, here the outer one.
    let mut encoded: Vec<(&Pointer, bool)> = rewrites
        .iter()
        .filter_map(|rewrite| match rewrite {
            toolbridge::Rewrite::JsonEncoded { at, object } => Some((at, *object)),
            _ => None,
        })
        .collect();
    encoded.sort_by_key(|(at, _)| at.tokens().count());
    for (at, object) in encoded {
        let tokens: Vec<String> = at.tokens().collect();
        // An encoded object that may be null is written nullable, so a null
        // goes as it is; a null "any" value goes as the string "null".
        at_places(&mut sent, &tokens, &mut |parent, key| {
            if let Some(value) = parent.get_mut(key).filter(|value| !(object && value.is_null())) {
                *value = Value::String(value.to_string());
            }
        });
    }
    for rewrite in rewrites {
        if let toolbridge::Rewrite::NullMeansAbsent { at } = rewrite {
            let tokens: Vec<String> = at.tokens().collect();
            at_places(&mut sent, &tokens, &mut |parent, key| {
                parent.entry(key.to_string()).or_insert(Value::Null);
            });
        }
    }
    sent
}

fn any_value() -> impl Strategy<Value = Value> + Clone {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-50i64..50).prop_map(Value::from),
        "[a-z {}\"]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            proptest::collection::btree_map(word(), inner, 0..3)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A schema and a value valid under it, among the shapes items 1-4 of
/// issue 7 lower: free-form objects, maps, "any" values, arrays without
/// items, enums without a type.
fn schema_and_value() -> impl Strategy<Value = (Value, Value)> + Clone {
    let leaf = prop_oneof![
        word().prop_map(|text| (json!({"type": "string"}), json!(text))),
        (-9i64..9).prop_map(|n| (json!({"type": "integer"}), json!(n))),
        prop_oneof![Just(json!("a")), Just(json!(1))].prop_map(|value| (json!({"enum": ["a", 1]}), value)),
        any_value().prop_map(|value| (json!({"description": "Any value."}), value)),
        proptest::collection::btree_map(word(), any_value(), 0..3).prop_map(|members| (
            json!({"type": "object"}),
            Value::Object(members.into_iter().collect())
        )),
        proptest::collection::btree_map(word(), word(), 0..3).prop_map(|members| {
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
                json!(members),
            )
        }),
        proptest::collection::vec(any_value(), 0..3)
            .prop_map(|items| (json!({"type": "array"}), Value::Array(items))),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(|pairs| {
                // One schema for every item: the first pair's.
                let schema = pairs
                    .first()
                    .map_or(json!({"type": "string"}), |(schema, _)| schema.clone());
                let values: Vec<Value> = pairs
                    .into_iter()
                    .filter(|(item_schema, _)| *item_schema == schema)
                    .map(|(_, value)| value)
                    .collect();
                (json!({"type": "array", "items": schema}), Value::Array(values))
            }),
            arguments(inner),
        ]
    })
}

/// An object schema whose properties come from `inner`, each required or
/// not, and a value holding the required ones and some optional ones.
fn arguments(
    inner: impl Strategy<Value = (Value, Value)> + Clone,
) -> impl Strategy<Value = (Value, Value)> + Clone {
    proptest::collection::btree_map(word(), (inner, any::<bool>(), any::<bool>()), 1..4).prop_map(
        |properties| {
            let mut schema = json!({"type": "object", "properties": {}});
            let mut value = Map::new();
            let mut required = Vec::new();
            for (name, ((property, sample), is_required, present)) in properties {
                schema["properties"][&name] = property;
                if is_required {
                    required.push(name.clone());
                }
                if is_required || present {
                    value.insert(name, sample);
                }
            }
            if !required.is_empty() {
                schema["required"] = json!(required);
            }
            (schema, Value::Object(value))
        },
    )
}

/// Root schemas: plain, a map (which Gemini and strict modes get nested),
/// or a oneOf of two objects at the root (which the providers refuse and
/// toolbridge merges).
fn root_and_arguments() -> impl Strategy<Value = (Value, Value)> {
    prop_oneof![
        arguments(schema_and_value()),
        proptest::collection::btree_map(word(), word(), 0..3).prop_map(|members| {
            (
                json!({"type": "object", "additionalProperties": {"type": "string"}}),
                json!(members),
            )
        }),
        (
            arguments(schema_and_value()),
            arguments(schema_and_value()),
            any::<bool>()
        )
            .prop_map(|((first, first_value), (second, second_value), pick_first)| {
                let schema = json!({"type": "object", "oneOf": [first, second]});
                (schema, if pick_first { first_value } else { second_value })
            }),
    ]
}

fn arguments_round_trip(
    schema: &Value,
    arguments: &Value,
    format: Format,
    strict: bool,
) -> Result<(), TestCaseError> {
    let tool: Tool = serde_json::from_value(json!({"name": "t", "inputSchema": schema})).unwrap();
    let written = toolbridge::write(
        std::slice::from_ref(&tool),
        format,
        &WriteOptions::default().with_strict(strict),
    );
    let only = &written.tools[0];
    let Ok(converted) = &only.result else {
        return Ok(());
    };
    let sent = as_sent(arguments, &only.inverse.rewrites);
    // What the model sends must be valid under what was written. (Not
    // checked for a merged root: the null-means-absent places of two
    // branches share a property there, and this forward step fills both.)
    if format == Format::OpenAi && strict && schema.get("oneOf").is_none() {
        let parameters = &converted.value.as_json().unwrap()["function"]["parameters"];
        let validator = jsonschema::validator_for(parameters).unwrap();
        let errors: Vec<String> = validator.iter_errors(&sent).map(|err| err.to_string()).collect();
        prop_assert!(
            errors.is_empty(),
            "{format} (strict): sent {sent} is not valid under the written {parameters}: {errors:?}"
        );
    }
    let mut restored = sent.clone();
    let unrestored = only.inverse.restore(&mut restored);
    prop_assert!(unrestored.is_empty(), "{format}: {unrestored:?}");
    prop_assert_eq!(
        &restored,
        arguments,
        "{}{}: sent {} with rewrites {:?}",
        format,
        if strict { " (strict)" } else { "" },
        sent,
        only.inverse.rewrites
    );
    // The Toolbox, given the written set, turns the model's call (under the
    // written name) back into the canonical arguments — when they are valid
    // under the canonical schema (a generated oneOf root can match both
    // branches, which the Toolbox rightly refuses).
    let valid = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .is_ok_and(|validator| validator.is_valid(arguments));
    if !valid {
        return Ok(());
    }
    let toolbox = Toolbox::new([tool.clone()]).unwrap().with_written(&written);
    let call = ToolCall::new("call_0", only.inverse.written_name.clone(), sent.clone());
    let checked = toolbox.check(&call);
    let accepted = checked.accepted();
    prop_assert!(
        accepted.is_some(),
        "{format}: the Toolbox rejected {sent}: {:?}",
        checked.rejection().map(|rejection| &rejection.message)
    );
    prop_assert_eq!(
        &accepted.unwrap().arguments,
        arguments,
        "{}: Toolbox on {}",
        format,
        sent
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    #[test]
    fn arguments_sent_under_the_written_schema_restore_to_the_canonical_ones(
        (schema, arguments) in root_and_arguments()
    ) {
        for format in Format::all() {
            arguments_round_trip(&schema, &arguments, format, false)?;
            arguments_round_trip(&schema, &arguments, format, true)?;
        }
    }
}

#[test]
fn gemini_and_openai_strict_record_what_they_encode() {
    let schema = json!({"type": "object", "properties": {
        "env": {"type": "object", "additionalProperties": {"type": "string"}},
        "rows": {"type": "array", "items": {"type": "object"}},
        "value": {}}, "required": ["env"]});
    let arguments = json!({"env": {"HOME": "/root"}, "rows": [{"a": [1]}], "value": "x"});
    for (format, strict, expected) in [
        (
            Format::Gemini,
            false,
            json!([
            {"kind": "json-encoded", "at": "/env", "object": true},
            {"kind": "json-encoded", "at": "/rows/*", "object": true},
            {"kind": "json-encoded", "at": "/value", "object": false}]),
        ),
        (
            Format::OpenAi,
            true,
            json!([
            {"kind": "json-encoded", "at": "/env", "object": true},
            {"kind": "json-encoded", "at": "/rows/*", "object": true},
            {"kind": "json-encoded", "at": "/value", "object": false},
            {"kind": "null-means-absent", "at": "/rows"},
            {"kind": "null-means-absent", "at": "/value"}]),
        ),
    ] {
        let tool: Tool = serde_json::from_value(json!({"name": "t", "inputSchema": schema})).unwrap();
        let written = toolbridge::write(&[tool], format, &WriteOptions::default().with_strict(strict));
        let inverse = &written.tools[0].inverse;
        assert_eq!(
            serde_json::to_value(&inverse.rewrites).unwrap(),
            expected,
            "{format}"
        );
        let sent = as_sent(&arguments, &inverse.rewrites);
        assert_eq!(sent["env"], json!("{\"HOME\":\"/root\"}"));
        let mut restored = sent;
        assert!(inverse.restore(&mut restored).is_empty());
        assert_eq!(restored, arguments, "{format}");
    }
}

/// A `$ref` that points at nothing is never written silently: each format
/// either refuses the tool or notes the place.
#[test]
fn a_ref_to_nothing_is_an_error_or_a_note_in_every_format() {
    let tool: Tool = serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object",
        "properties": {"a": {"$ref": "#/$defs/missing"}}}}))
    .unwrap();
    let place = Pointer::parse("/inputSchema/properties/a").unwrap();
    let mut silent = Vec::new();
    for format in Format::all() {
        for strict in [false, true] {
            let written = toolbridge::write(
                std::slice::from_ref(&tool),
                format,
                &WriteOptions::default().with_strict(strict),
            );
            let noted = match &written.tools[0].result {
                Err(err) => err.pointer().starts_with(&place),
                Ok(converted) => converted.notes.iter().any(|note| note.at.starts_with(&place)),
            };
            if !noted {
                silent.push(format!("{format}{}", if strict { " (strict)" } else { "" }));
            }
        }
    }
    assert!(silent.is_empty(), "written without a word: {silent:?}");
}
