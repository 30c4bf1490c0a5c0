//! Round trips: random canonical tools → each format → back.
//!
//! The property (pandoc's HTML reader property, made exact): every place where
//! the tool that comes back differs from the tool that went in is covered by a
//! note the writer made, at that place or an ancestor of it. For the
//! lossless formats (toolbridge, mcp) the tool must come back equal.

mod common;

use proptest::prelude::*;
use serde_json::{json, Map, Value};
use toolbridge::{Format, Note, Pointer, ReadOptions, Tool, WriteOptions};

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
