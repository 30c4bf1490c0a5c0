//! The first look ([`Toolbox::look`]) accepts a call as sent only when the
//! full check would give the same answer: checked with and without it, any
//! call comes out the same.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::{CutOff, Look, Toolbox};
use crate::call::ToolCall;
use crate::tool::Tool;
use crate::{Checked, Format, WriteOptions};

impl Toolbox {
    /// The full check, learning nothing from a first look.
    fn check_fully(&self, call: &ToolCall) -> Checked {
        let caller = super::Caller {
            id: call.id.clone(),
            name: call.name.clone(),
            provider_id: call.provider_id.clone(),
            provider_name: call.provider_name.clone(),
        };
        let arguments = call
            .arguments
            .as_ref()
            .map(std::borrow::Cow::Borrowed)
            .map_err(std::borrow::Cow::Borrowed);
        self.check_arguments(caller, arguments, CutOff::of(call), Look::default())
    }
}

/// Tools that take every path: a closed schema, an open one with a schema
/// default and a tool default, one written for OpenAI strict mode (strict
/// nulls, a name map), one with a transform, one with a static parameter.
fn toolbox() -> Toolbox {
    let closed = Tool::new(
        "closed",
        json!({"type": "object", "required": ["city"], "additionalProperties": false, "properties": {
            "city": {"type": "string", "minLength": 2}, "unit": {"enum": ["c", "f"]}}}),
    );
    let mut open = Tool::new(
        "open",
        json!({"type": "object", "required": ["text"], "properties": {
            "text": {"type": "string"}, "style": {"type": "string", "default": "short"},
            "count": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}}}),
    );
    open.defaults = Some(serde_json::from_value(json!({"count": 3})).unwrap());
    let strict = Tool::new(
        "github.search",
        json!({"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string"}, "state": {"enum": ["open", "closed"], "default": "open"},
            "limit": {"type": "integer", "maximum": 100}}}),
    );
    let mut transformed = Tool::new(
        "transformed",
        json!({"type": "object", "properties": {"city": {"type": "string"}, "greeting": {"type": "string"}}}),
    );
    transformed.defaults = Some(
        serde_json::from_value(json!({"greeting": {"transform": {"format": "Hello, {city}!"}}})).unwrap(),
    );
    let mut statics = Tool::new(
        "statics",
        json!({"type": "object", "properties": {"q": {"type": "string"}}}),
    );
    statics.static_parameters = Some(
        serde_json::from_value(json!([{"name": "sources", "type": "dataSourceList", "default": ["faq"]}]))
            .unwrap(),
    );
    let tools = vec![closed, open, strict, transformed, statics];
    let written = crate::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    Toolbox::new(tools).unwrap().with_written(&written)
}

fn key() -> impl Strategy<Value = String> {
    // The parameters a null, a default or a transform is about, and
    // undeclared ones (a near miss and not).
    prop::sample::select(vec![
        "city", "unit", "style", "count", "state", "greeting", "q", "sources", "citty", "x",
    ])
    .prop_map(str::to_string)
}

fn value() -> impl Strategy<Value = Value> {
    // Nulls often: a strict null to undo is the look's subtlest case.
    let leaf = prop_oneof![
        4 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => (-5i64..200).prop_map(Value::from),
        2 => prop::sample::select(vec!["Paris", "c", "f", "open", "5", "", "x"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..3)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn the_first_look_changes_no_answer(
        name in prop::sample::select(vec!["closed", "open", "github.search", "github_search", "transformed", "statics", "nope"]),
        members in prop::collection::vec((key(), value()), 0..3),
        schema_defaults in any::<bool>(),
    ) {
        let options = crate::CheckOptions { schema_defaults, ..crate::CheckOptions::default() };
        let toolbox = toolbox().with_options(options);
        // A call that is valid as it stands, then changed at random.
        let mut arguments = match name {
            "closed" => json!({"city": "Paris", "unit": "c"}),
            "open" => json!({"text": "t", "style": "s", "count": 3}),
            "github.search" | "github_search" => json!({"query": "ice", "state": "open", "limit": 5}),
            _ => json!({"city": "Paris", "greeting": "Hi", "q": "x"}),
        };
        let map = arguments.as_object_mut().unwrap();
        for (key, value) in members {
            map.insert(key, value);
        }
        let call = ToolCall::new("c", name, arguments);
        let full = toolbox.check_fully(&call);
        prop_assert_eq!(&toolbox.check(&call), &full);
        prop_assert_eq!(&toolbox.check_owned(call), &full);
    }
}

#[test]
fn a_plain_call_is_accepted_by_the_look_alone() {
    let toolbox = toolbox();
    let call = ToolCall::new("c", "closed", json!({"city": "Paris", "unit": "c"}));
    let look = toolbox.look(&call);
    assert_eq!(
        (look.bounded, look.idle, look.valid),
        (true, Some(true), Some(true))
    );
    // A strict null to undo: the look stops at the plan, bounds known.
    let call = ToolCall::new("c", "github.search", json!({"query": "ice", "state": null}));
    let look = toolbox.look(&call);
    assert_eq!((look.bounded, look.idle, look.valid), (true, Some(false), None));
    // The name the tool was written under: looked at as for its own name,
    // and accepted under the tool's name with the note that says so.
    let call = ToolCall::new(
        "c",
        "github_search",
        json!({"query": "ice", "state": "open", "limit": 5}),
    );
    let look = toolbox.look(&call);
    assert_eq!(
        (look.bounded, look.idle, look.valid, look.notes),
        (true, Some(true), Some(true), 1)
    );
    let accepted = toolbox.check(&call).accepted().cloned().unwrap();
    assert_eq!(accepted.name, "github.search");
    assert_eq!(
        accepted
            .notes
            .iter()
            .map(|note| note.message.to_string())
            .collect::<Vec<_>>(),
        ["the call named `github_search`, the name the tool was written under; it is `github.search`"]
    );
    // A strict null under the written name, with a default to take its
    // place: the plan in one pass, whose three notes are shared.
    let call = ToolCall::new("c", "github_search", json!({"query": "ice", "state": null}));
    let look = toolbox.look(&call);
    assert_eq!((look.idle, look.notes), (Some(false), 1));
    assert!(look.planned().is_some());
    let accepted = toolbox.check(&call).accepted().cloned().unwrap();
    assert_eq!(accepted.notes.len(), 3);
    assert_eq!(accepted.arguments, json!({"query": "ice", "state": "open"}));
    // A name no tool has: the look learns nothing.
    let call = ToolCall::new("c", "github_searches", json!({"query": "ice"}));
    let look = toolbox.look(&call);
    assert_eq!((look.bounded, look.idle, look.valid), (false, None, None));
}

/// Each way the look can stop, and a call it accepts, answered as the full
/// check answers them.
#[test]
fn calls_the_look_stops_at_are_answered_as_the_full_check_answers() {
    let toolbox = toolbox();
    let cases = [
        ("closed", json!({"city": "Paris", "unit": "c"})),
        // Strict nulls with nothing to fill: the plan must still run.
        ("closed", json!({"city": "Paris", "unit": null})),
        ("statics", json!({"q": null})),
        // A static parameter to set after validation.
        ("statics", json!({"q": "x"})),
        // A default to fill.
        ("open", json!({"text": "t", "style": "s"})),
        // An undeclared parameter to note, and a near miss to reject.
        ("open", json!({"text": "t", "style": "s", "count": 1, "x": 1})),
        ("closed", json!({"citty": "Paris"})),
        // Invalid as sent but coercible.
        ("open", json!({"text": "t", "style": "s", "count": "5"})),
        (
            "open",
            json!({"text": "t", "style": "s", "count": 1, "tags": "a"}),
        ),
        // Nested, a transform, a written name.
        (
            "open",
            json!({"text": "t", "style": "s", "count": 1, "tags": ["a"]}),
        ),
        ("transformed", json!({"city": "Paris"})),
        (
            "github_search",
            json!({"query": "ice", "state": null, "limit": null}),
        ),
    ];
    for (name, arguments) in cases {
        let call = ToolCall::new("c", name, arguments);
        let full = toolbox.check_fully(&call);
        assert_eq!(toolbox.check(&call), full, "{name}: {:?}", call.arguments);
        assert_eq!(toolbox.check_owned(call), full, "{name}");
    }
}

/// The plan in one pass gives what the full plan gives, and the calls it
/// changes the same way share one list of notes.
#[test]
fn calls_changed_the_same_way_share_their_notes() {
    let toolbox = toolbox();
    let call = |arguments: Value| ToolCall::new("c", "github_search", arguments);
    let first = toolbox.check_owned(call(json!({"query": "ice", "state": null, "limit": null})));
    let second = toolbox.check_owned(call(json!({"limit": null, "query": "fire", "state": null})));
    let (first, second) = (first.accepted().unwrap(), second.accepted().unwrap());
    assert_eq!(first.arguments, json!({"query": "ice", "state": "open"}));
    // The default takes the null's place; the other null is removed.
    assert_eq!(
        serde_json::to_string(&second.arguments).unwrap(),
        r#"{"query":"fire","state":"open"}"#
    );
    let messages: Vec<String> = first.notes.iter().map(|note| note.message.to_string()).collect();
    assert_eq!(
        messages,
        [
            "the call named `github_search`, the name the tool was written under; it is `github.search`",
            "the arguments were put back into the canonical schema's shape, undoing how the tool was \
             written as `github_search` (at /state, /limit)",
            "`state` was not given; its schema's default \"open\" was used",
        ]
    );
    assert!(std::ptr::eq(first.notes.as_ptr(), second.notes.as_ptr()));
    // Another outcome (one null undone, not two) has its own notes.
    let third = toolbox.check_owned(call(json!({"query": "ice", "state": null, "limit": 5})));
    let third = third.accepted().unwrap();
    assert_eq!(third.notes.len(), 3);
    assert!(!std::ptr::eq(first.notes.as_ptr(), third.notes.as_ptr()));
    // A call that needs nothing changed gets no notes and shares nothing.
    let plain = toolbox.check_owned(ToolCall::new(
        "c",
        "github.search",
        json!({"query": "ice", "state": "closed"}),
    ));
    assert_eq!(plain.accepted().unwrap().notes, crate::SharedNotes::new());
}

/// A tool with more outcomes than are kept writes each call's notes: the
/// same notes as the full plan, every time.
#[test]
fn a_tool_with_many_outcomes_writes_their_notes_each_time() {
    let properties: Map<String, Value> = (0..8)
        .map(|index| (format!("p{index}"), json!({"type": "integer", "default": index})))
        .collect();
    let wide = Tool::new("wide", json!({"type": "object", "properties": properties}));
    let tools = vec![wide];
    let written = crate::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    let arguments: Map<String, Value> = (0..8)
        .map(|index| {
            (
                format!("p{index}"),
                if index % 3 == 0 { json!(9) } else { Value::Null },
            )
        })
        .collect();
    let call = ToolCall::new("c", "wide", Value::Object(arguments));
    assert!(toolbox.look(&call).planned().is_some());
    let full = toolbox.check_fully(&call);
    for _ in 0..2 {
        assert_eq!(toolbox.check(&call), full);
    }
    let accepted = full.accepted().unwrap();
    assert_eq!(
        accepted.arguments,
        json!({"p0": 9, "p1": 1, "p2": 2, "p3": 9, "p4": 4, "p5": 5, "p6": 9, "p7": 7})
    );
    assert_eq!(accepted.notes.len(), 6);
}

/// A tool known under two written names keeps the notes of the first one
/// it saw in its slot; a call under the other name gets its own.
#[test]
fn a_tool_written_under_two_names_notes_each_name() {
    let tool = Tool::new(
        "github.search",
        json!({"type": "object", "required": ["query"], "properties": {
            "query": {"type": "string"}, "limit": {"type": "integer"}}}),
    );
    let tools = vec![tool];
    let mut written = crate::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    written.tools[0].inverse.written_name = "search_v2".into();
    let toolbox = Toolbox::new(tools).unwrap().with_written(&written);
    for name in ["github_search", "search_v2", "github_search", "search_v2"] {
        let call = ToolCall::new("c", name, json!({"query": "ice", "limit": null}));
        assert!(toolbox.look(&call).planned().is_some(), "{name}");
        let full = toolbox.check_fully(&call);
        assert_eq!(toolbox.check(&call), full, "{name}");
        let accepted = toolbox.check_owned(call).accepted().cloned().unwrap();
        assert_eq!(
            accepted.notes[0].message,
            format!("the call named `{name}`, the name the tool was written under; it is `github.search`")
        );
        assert_eq!(accepted.arguments, json!({"query": "ice"}));
    }
}
