//! Toolbox speed.
//!
//! Ids: `toolbox/accept` checks 100 valid calls of the four example tools
//! (`examples/tools`) with a Toolbox built from the tools as written for
//! OpenAI strict mode, so every call also goes through name resolution, the
//! writer's inverse (nulls for absent optional arguments), defaults and
//! validation; `toolbox/accept-owned` is the same with the calls given up
//! ([`Toolbox::check_owned`]: arguments, id and name moved, not copied); `toolbox/jsonschema-floor` is bare `jsonschema` validation
//! (formats checked, as the Toolbox does) of the canonical arguments of the
//! same calls against the same schemas, the floor; `toolbox/accept-owned-plain`
//! and `toolbox/jsonschema-floor-plain` are the same two for calls with
//! nothing to undo or fill in (`get_weather` and `summarize_text` as the
//! canonical schema has them); `toolbox/reject` checks 100 calls that each
//! break a rule, building the model-facing message.

use std::fs;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::{json, Value};
use toolbridge::call::ToolCall;
use toolbridge::{Format, ReadOptions, Tool, Toolbox, WriteOptions};

fn example_tools() -> Vec<Tool> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/tools");
    let mut paths: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    paths.sort();
    paths
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).unwrap();
            toolbridge::read(&text, &ReadOptions::default())
                .unwrap()
                .into_converted()
                .unwrap()
                .value
        })
        .collect()
}

/// (canonical name, canonical arguments, arguments as a strict-mode model
/// sends them, arguments that break a rule) for each example tool.
fn cases() -> Vec<(&'static str, Value, Value, Value)> {
    vec![
        (
            "delete_file",
            json!({"path": "src/old.rs"}),
            json!({"path": "src/old.rs", "force": null}),
            json!({"path": 7}),
        ),
        (
            "get_weather",
            json!({"city": "Paris, FR", "unit": "celsius"}),
            json!({"city": "Paris, FR", "unit": "celsius"}),
            json!({"city": "Paris, FR", "unit": "kelvin"}),
        ),
        (
            "github.search_issues",
            json!({"repository": "rust-lang/rust", "query": "ice", "labels": ["I-ICE"],
                "created": {"from": "2026-01-01", "to": null}, "limit": 20}),
            json!({"repository": "rust-lang/rust", "query": "ice", "state": null, "labels": ["I-ICE"],
                "created": {"from": "2026-01-01", "to": null}, "limit": 20}),
            json!({"repository": "not a repo", "query": "ice", "limit": 500}),
        ),
        (
            "summarize_text",
            json!({"text": "A long text.", "style": "bullet points"}),
            json!({"text": "A long text.", "style": "bullet points"}),
            json!({"txt": "A long text."}),
        ),
    ]
}

fn toolbox(c: &mut Criterion) {
    let tools = example_tools();
    let written = toolbridge::write(&tools, Format::OpenAi, &WriteOptions::default().with_strict(true));
    let toolbox = Toolbox::new(tools.clone()).unwrap().with_written(&written);
    let cases = cases();
    let written_name = |name: &str| {
        written
            .tools
            .iter()
            .find(|tool| tool.name == name)
            .map(|tool| tool.inverse.written_name.clone())
            .unwrap()
    };
    let mut valid = Vec::new();
    let mut invalid = Vec::new();
    let mut floor = Vec::new();
    for index in 0..100 {
        let (name, canonical, sent, broken) = &cases[index % cases.len()];
        let id = format!("call_{index}");
        valid.push(ToolCall::new(&id, written_name(name), sent.clone()));
        invalid.push(ToolCall::new(&id, written_name(name), broken.clone()));
        let schema = &tools.iter().find(|tool| tool.name == *name).unwrap().input_schema;
        floor.push((schema, canonical.clone()));
    }
    for checked in toolbox.check_all(&valid) {
        assert!(checked.is_accepted(), "{:?}", checked.rejection());
    }
    for checked in toolbox.check_all(&invalid) {
        assert!(!checked.is_accepted());
    }
    let validators = floor_validators(&floor);
    // Calls with nothing to undo (sent as the canonical schema has them, under
    // the canonical name, no default to fill): what the Toolbox costs beyond
    // validation when validating is all there is to do.
    let plain_cases: Vec<_> = cases
        .iter()
        .filter(|(name, canonical, sent, _)| canonical == sent && written_name(name) == *name)
        .collect();
    let mut plain = Vec::new();
    let mut plain_floor = Vec::new();
    for index in 0..100 {
        let (name, canonical, sent, _) = plain_cases[index % plain_cases.len()];
        plain.push(ToolCall::new(format!("call_{index}"), *name, sent.clone()));
        let schema = &tools.iter().find(|tool| tool.name == *name).unwrap().input_schema;
        plain_floor.push((schema, canonical.clone()));
    }
    for checked in toolbox.check_all(&plain) {
        let accepted = checked.accepted().expect("a plain call is accepted");
        assert!(accepted.notes.is_empty(), "{:?}", accepted.notes);
    }
    let plain_validators = floor_validators(&plain_floor);

    let mut group = c.benchmark_group("toolbox");
    group.throughput(Throughput::Elements(valid.len() as u64));
    group.bench_function("accept", |b| b.iter(|| toolbox.check_all(&valid)));
    // What a dispatcher does with the calls it parsed: gives them up, so the
    // arguments are moved instead of copied (the copies are made outside
    // the measurement).
    group.bench_function("accept-owned", |b| accept_owned(b, &toolbox, &valid));
    group.bench_function("jsonschema-floor", |b| bare_validation(b, &validators));
    group.bench_function("accept-owned-plain", |b| accept_owned(b, &toolbox, &plain));
    group.bench_function("jsonschema-floor-plain", |b| {
        bare_validation(b, &plain_validators)
    });
    group.bench_function("reject", |b| b.iter(|| toolbox.check_all(&invalid)));
    group.finish();
}

/// A validator (formats checked, as the Toolbox does) for each schema, with
/// its instance.
fn floor_validators(floor: &[(&Value, Value)]) -> Vec<(jsonschema::Validator, Value)> {
    floor
        .iter()
        .map(|(schema, instance)| {
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(schema)
                .unwrap();
            (validator, instance.clone())
        })
        .collect()
}

criterion_group!(benches, toolbox);
criterion_main!(benches);

/// Checks owned copies of `calls`, as a dispatcher that gives its parsed calls up does.
fn accept_owned(b: &mut criterion::Bencher, toolbox: &Toolbox, calls: &[ToolCall]) {
    b.iter_batched(
        || calls.to_vec(),
        |calls| {
            calls
                .into_iter()
                .map(|call| toolbox.check_owned(call))
                .collect::<Vec<_>>()
        },
        BatchSize::SmallInput,
    )
}

/// The floor: the jsonschema crate's `is_valid` over each instance.
fn bare_validation(b: &mut criterion::Bencher, validators: &[(jsonschema::Validator, Value)]) {
    b.iter(|| {
        validators
            .iter()
            .filter(|(validator, instance)| validator.is_valid(instance))
            .count()
    })
}
