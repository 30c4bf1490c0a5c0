//! Streams: every fixture under `tests/fixtures/streams/<provider>/` is raw
//! bytes as they came over the wire (`.sse`, or `.ndjson` for Ollama and
//! Bedrock's events as the AWS SDKs give them). Each is fed whole through the
//! provider's framer and assembler and its events snapshotted
//! (`stream__<case>@<provider>.snap`; `err_*` fixtures end in an error).
//! Each quirk of providers.md §1c and §15.3 has a fixture whose calls are
//! pinned below with exact values; and any split of any fixture — one byte
//! at a time, inside UTF-8 characters, between `\r` and `\n` — gives the same
//! events and calls as feeding it whole.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{json, Value};
use toolbridge::call::{ArgumentsErrorKind, CallEvent, CallOptions, Change, ToolCall};
use toolbridge::{Error, Format, NoteKind};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/streams")
}

fn provider(path: &Path) -> Format {
    let dir = path.parent().unwrap().file_name().unwrap().to_string_lossy();
    Format::from_id(&dir).unwrap()
}

fn all_fixtures() -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for dir in fs::read_dir(fixtures_dir()).unwrap() {
        for file in fs::read_dir(dir.unwrap().path()).unwrap() {
            paths.push(file.unwrap().path());
        }
    }
    paths.sort();
    paths
}

/// Feeds `pieces` to the provider's stream; the events, and the error that
/// ended it, if any.
fn run<'a>(format: Format, pieces: impl IntoIterator<Item = &'a [u8]>) -> (Vec<CallEvent>, Option<Error>) {
    let mut stream = format.call_stream(&CallOptions::default()).unwrap();
    let mut events = Vec::new();
    for piece in pieces {
        if let Err(err) = stream.push(piece, &mut events) {
            return (events, Some(err));
        }
    }
    let end = stream.finish(&mut events).err();
    (events, end)
}

fn run_fixture(provider: &str, case: &str) -> (Vec<CallEvent>, Option<Error>) {
    let dir = fixtures_dir().join(provider);
    let path = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.file_stem().unwrap() == case)
        .unwrap_or_else(|| panic!("no fixture {provider}/{case}"));
    let bytes = fs::read(&path).unwrap();
    run(Format::from_id(provider).unwrap(), [bytes.as_slice()])
}

fn calls(events: &[CallEvent]) -> Vec<ToolCall> {
    events
        .iter()
        .filter_map(|event| match event {
            CallEvent::Finished { call, .. } => Some((**call).clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn fixtures_stream_to_their_events() {
    insta::glob!("fixtures/streams/*/*.*", |path| {
        let format = provider(path);
        let bytes = fs::read(path).unwrap();
        let (events, error) = run(format, [bytes.as_slice()]);
        let is_error_fixture = path.file_name().unwrap().to_string_lossy().starts_with("err_");
        assert_eq!(error.is_some(), is_error_fixture, "{}: {error:?}", path.display());
        let mut body = String::new();
        for event in &events {
            match event {
                CallEvent::Finished { index, call } => {
                    body.push_str(&format!("finished {index} "));
                    body.push_str(&serde_json::to_string_pretty(call).unwrap());
                    body.push('\n');
                }
                other => {
                    body.push_str(&serde_json::to_string(other).unwrap());
                    body.push('\n');
                }
            }
        }
        if let Some(error) = error {
            body.push_str(&format!("error: {error}\n"));
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_suffix(format.id());
        let _guard = settings.bind_to_scope();
        insta::assert_snapshot!(path.file_stem().unwrap().to_string_lossy().to_string(), body);
    });
}

/// (id, provider id, name, arguments or the error's kind and raw text)
type Summary = (
    String,
    Option<String>,
    String,
    Result<Value, (ArgumentsErrorKind, String)>,
);

fn summary(events: &[CallEvent]) -> Vec<Summary> {
    calls(events)
        .iter()
        .map(|call| {
            (
                call.id.clone(),
                call.provider_id.clone(),
                call.name.clone(),
                call.arguments
                    .clone()
                    .map_err(|err| (err.kind(), err.raw().to_string())),
            )
        })
        .collect()
}

fn ok(id: &str, name: &str, arguments: Value) -> Summary {
    (id.into(), Some(id.into()), name.into(), Ok(arguments))
}

fn renamed(id: &str, provider_id: Option<&str>, name: &str, arguments: Value) -> Summary {
    (id.into(), provider_id.map(Into::into), name.into(), Ok(arguments))
}

fn failed(id: &str, name: &str, kind: ArgumentsErrorKind, raw: &str) -> Summary {
    (id.into(), Some(id.into()), name.into(), Err((kind, raw.into())))
}

/// Every quirk, its fixture, and the calls it must give.
fn quirks() -> Vec<(&'static str, &'static str, Vec<Summary>)> {
    use ArgumentsErrorKind::{InvalidJson, Unfinished};
    vec![
        (
            "openai",
            "documented",
            vec![ok("call_abc", "get_weather", json!({"city": "Paris"}))],
        ),
        (
            "openai",
            "parallel_crlf_utf8",
            vec![
                ok(
                    "call_tokyo",
                    "get_weather",
                    json!({"city": "東京", "note": "🌧 likely"}),
                ),
                ok("call_zurich", "get_weather", json!({"city": "Zürich"})),
            ],
        ),
        // openai-python #2806: no `index`, calls told apart by id.
        (
            "openai",
            "missing_index",
            vec![
                ok("call_g1", "get_weather", json!({"city": "Paris"})),
                ok("call_g2", "get_weather", json!({"city": "Rome"})),
            ],
        ),
        // mistral.rs #1507: no `index`; fragments without id go to the most recently opened call.
        (
            "openai",
            "missing_index_fragments",
            vec![
                ok("call_m1", "search", json!({"q": "rust sse"})),
                ok("call_m2", "open_page", json!({"n": 1})),
            ],
        ),
        // codex #7517: `id` only on the first delta.
        (
            "openai",
            "id_first_only",
            vec![
                ok("call_lc1", "read_file", json!({"path": "src/main.rs"})),
                ok("call_lc2", "read_file", json!({"path": "Cargo.toml"})),
            ],
        ),
        // SillyTavern #5948: id and name on every chunk, never concatenated.
        (
            "openai",
            "id_every_chunk",
            vec![ok("call_fw1", "get_weather", json!({"city": "Nairobi"}))],
        ),
        // langchain #35414: `id: ""` is no id.
        (
            "openai",
            "id_empty_later",
            vec![ok("call_e1", "get_weather", json!({"city": "Quito"}))],
        ),
        // qwen-code #3521, litellm #16194: parallel calls all on index 0, different ids.
        (
            "openai",
            "parallel_index_zero",
            vec![
                ok("call_ds1", "get_weather", json!({"city": "Hangzhou"})),
                ok("call_ds2", "get_weather", json!({"city": "Beijing"})),
            ],
        ),
        // nanobot #3943: one id for parallel calls; made unique, the provider's kept.
        (
            "openai",
            "reused_id",
            vec![
                ok("call_0_dup", "get_weather", json!({"city": "Paris"})),
                renamed(
                    "call_0_dup_2",
                    Some("call_0_dup"),
                    "get_weather",
                    json!({"city": "Rome"}),
                ),
            ],
        ),
        // litellm #7621 (Groq), vLLM: whole calls in one chunk, not merged.
        (
            "openai",
            "whole_calls_one_chunk",
            vec![
                ok("call_q1", "get_weather", json!({"city": "Lagos"})),
                ok("call_q2", "get_weather", json!({"city": "Accra"})),
                ok("call_q3", "get_time", json!({})),
            ],
        ),
        // rig #1829: arguments streamed as an object.
        (
            "openai",
            "arguments_object",
            vec![ok(
                "call_gw1",
                "get_weather",
                json!({"city": "Seoul", "unit": "celsius"}),
            )],
        ),
        // rig #1437, genai #127, vllm #28806/#47901: "" means {}, and the next call keeps its arguments.
        (
            "openai",
            "zero_arguments",
            vec![
                ok("call_z1", "get_time", json!({})),
                ok("call_z2", "get_weather", json!({"city": "Lima"})),
            ],
        ),
        // GLM: no ids at all.
        (
            "openai",
            "no_ids",
            vec![
                renamed("call_0", None, "get_weather", json!({"city": "Hanoi"})),
                renamed("call_1", None, "get_time", json!({})),
            ],
        ),
        // Never finished because the buffer parses: cut off, both calls are unfinished.
        (
            "openai",
            "cut_off",
            vec![
                failed("call_cut", "get_weather", Unfinished, "{\"city\":\"Perth\"}"),
                failed(
                    "call_cut2",
                    "write_file",
                    Unfinished,
                    "{\"path\":\"a.txt\",\"content\":\"hel",
                ),
            ],
        ),
        (
            "openai",
            "invalid_json",
            vec![failed(
                "call_inv",
                "write_file",
                InvalidJson,
                "{\"path\":\"a.md\",\"content\":\"# T",
            )],
        ),
        // comet-ml/opik #7385: Mistral sends each call whole, several in one delta.
        (
            "mistral",
            "whole_calls",
            vec![
                ok("D681PevKs", "get_weather", json!({"city": "Paris"})),
                ok("Fq2ZbQ8mN", "get_weather", json!({"city": "Montréal"})),
            ],
        ),
        (
            "openai-responses",
            "documented",
            vec![ok("call_1", "get_weather", json!({"city": "Paris"}))],
        ),
        // rig #1827: deltas without content_index (and here without output_index).
        (
            "openai-responses",
            "no_content_index",
            vec![ok("call_a", "search", json!({"q": "naïve café"}))],
        ),
        // providers.md §2c: the done item wins over the added one.
        (
            "openai-responses",
            "final_item_wins",
            vec![ok("call_final", "get_weather", json!({"city": "Tunis"}))],
        ),
        // The `.done` arguments differ from the deltas: they replace them.
        (
            "openai-responses",
            "done_replaces",
            vec![ok("call_r", "get_weather", json!({"city": "Lyon", "days": 2}))],
        ),
        (
            "openai-responses",
            "parallel",
            vec![
                ok("call_p2", "get_time", json!({"tz": "UTC"})),
                ok("call_p1", "get_weather", json!({"city": "Dakar"})),
            ],
        ),
        (
            "anthropic",
            "documented",
            vec![ok(
                "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                "get_weather",
                json!({"city": "Paris"}),
            )],
        ),
        // Kilo-Org/cloud #4753: a zero-argument call streams only "" (or nothing).
        (
            "anthropic",
            "zero_arguments",
            vec![
                ok("toolu_01Zero", "get_time", json!({})),
                ok("toolu_01NoDelta", "list_files", json!({})),
            ],
        ),
        (
            "anthropic",
            "parallel",
            vec![
                ok("toolu_01P1", "get_weather", json!({"city": "Ōsaka"})),
                ok("toolu_01P2", "get_weather", json!({"city": "Sapporo"})),
            ],
        ),
        (
            "anthropic",
            "max_tokens",
            vec![failed(
                "toolu_01Cut",
                "write_file",
                InvalidJson,
                "{\"path\": \"poem.txt\", \"content\": \"Roses are",
            )],
        ),
        (
            "bedrock",
            "documented",
            vec![ok(
                "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                "get_weather",
                json!({"city": "Paris"}),
            )],
        ),
        // The binary event stream as it comes over HTTP (built by
        // `eventstream_capture` below).
        (
            "bedrock",
            "binary",
            vec![ok(
                "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
                "get_weather",
                json!({"city": "Zürich", "days": 3}),
            )],
        ),
        // Vertex streamFunctionCallArguments: partialArgs by jsonPath, a string
        // continued across chunks, the empty functionCall as the end marker,
        // then a whole call.
        (
            "gemini",
            "partial_args",
            vec![
                renamed(
                    "call_0",
                    None,
                    "write_file",
                    json!({"path": "src/main.rs", "lines": [1, 2.5],
                        "options": {"mode": "overwrite", "backup": false}, "note.txt": null,
                        "content": "fn main() {\n    println!(\"hé\");\n}\n"}),
                ),
                renamed("call_1", None, "get_time", json!({"tz": "CET"})),
            ],
        ),
        // n = 2: by default only choice 0 is read (the other is an alternative).
        (
            "openai",
            "n_choices",
            vec![ok("call_a0", "get_weather", json!({"city": "Quito"}))],
        ),
        // crewAI #5739: no deltas at all means {} (not the start event's input).
        (
            "bedrock",
            "no_deltas",
            vec![
                ok("tooluse_empty1", "get_time", json!({})),
                ok("tooluse_empty2", "list_files", json!({})),
            ],
        ),
        // hermes-agent #107472: keyed by contentBlockIndex, not arrival order.
        (
            "bedrock",
            "interleaved",
            vec![
                ok("tooluse_b", "get_weather", json!({"city": "Bergen"})),
                ok("tooluse_a", "get_weather", json!({"city": "Tromsø"})),
            ],
        ),
        (
            "cohere",
            "documented",
            vec![
                ok(
                    "get_weather_nsz5zm3w56q3",
                    "get_weather",
                    json!({"location": "Toronto"}),
                ),
                ok("get_time_8y3kq1", "get_time", json!({})),
            ],
        ),
        (
            "gemini",
            "documented",
            vec![
                renamed("call_0", None, "get_weather", json!({"city": "Paris", "days": 3})),
                renamed("call_1", None, "get_time", json!({"tz": "Europe/Paris"})),
            ],
        ),
        (
            "gemini",
            "thought_signature",
            vec![
                ok("fc-1", "check_flight", json!({"flight": "AA100"})),
                ok("fc-2", "check_flight", json!({"flight": "UA200"})),
            ],
        ),
        (
            "gemini",
            "parallel_one_chunk",
            vec![
                renamed("call_0", None, "turn_on_lights", json!({})),
                renamed("call_1", None, "play_music", json!({"genre": "bossa nova"})),
                renamed("call_2", None, "set_volume", json!({"level": 5})),
            ],
        ),
        (
            "ollama",
            "documented",
            vec![ok(
                "call_k3x9q2ab",
                "get_temperature",
                json!({"city": "New York"}),
            )],
        ),
        // ollama #11633, #13581: calls whole, in separate chunks (an old server sends no id).
        (
            "ollama",
            "separate_chunks",
            vec![
                ok("call_a1b2c3d4", "get_temperature", json!({"city": "São Paulo"})),
                renamed("call_1", None, "get_conditions", json!({"city": "São Paulo"})),
            ],
        ),
        // ollama PR #12413, vllm PR #54964: a JSON string where an object was expected.
        (
            "ollama",
            "arguments_as_string",
            vec![renamed(
                "call_0",
                None,
                "get_temperature",
                json!({"city": "Berlin"}),
            )],
        ),
    ]
}

#[test]
fn every_quirk_gives_its_calls() {
    for (provider, case, expected) in quirks() {
        let (events, error) = run_fixture(provider, case);
        assert!(error.is_none(), "{provider}/{case}: {error:?}");
        assert_eq!(summary(&events), expected, "{provider}/{case}");
    }
}

#[test]
fn every_stream_fixture_is_pinned() {
    let pinned: Vec<String> = quirks()
        .iter()
        .map(|(provider, case, _)| format!("{provider}/{case}"))
        .collect();
    for path in all_fixtures() {
        let name = format!(
            "{}/{}",
            path.parent().unwrap().file_name().unwrap().to_string_lossy(),
            path.file_stem().unwrap().to_string_lossy()
        );
        assert!(
            pinned.contains(&name) || name.contains("/err_"),
            "{name} has no expected calls in quirks()"
        );
    }
}

#[test]
fn a_call_finishes_on_the_end_event_not_when_it_parses() {
    // The first call's arguments parse after the second chunk, but it ends with finish_reason.
    let (events, _) = run_fixture("openai", "documented");
    let kinds: Vec<&str> = events
        .iter()
        .map(|event| match event {
            CallEvent::Started { .. } => "started",
            CallEvent::ArgumentsDelta { .. } => "delta",
            CallEvent::Finished { .. } => "finished",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["started", "delta", "delta", "finished"]);
    let mut stream = Format::OpenAi.call_stream(&CallOptions::default()).unwrap();
    let mut events = Vec::new();
    let chunk = br#"data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":null}]}

"#;
    stream.push(chunk, &mut events).unwrap();
    assert!(!events
        .iter()
        .any(|event| matches!(event, CallEvent::Finished { .. })));
}

#[test]
fn notes_say_what_was_normalised() {
    let (events, _) = run_fixture("openai", "reused_id");
    let calls = calls(&events);
    assert_eq!(
        calls[1].notes[0].kind,
        NoteKind::Renamed {
            from: "call_0_dup".into(),
            to: "call_0_dup_2".into()
        }
    );
    let (events, _) = run_fixture("openai", "arguments_object");
    let calls = self::calls(&events);
    assert_eq!(
        calls[0].notes[0].kind,
        NoteKind::Normalized {
            field: "arguments".into()
        }
    );
    let (events, _) = run_fixture("openai-responses", "final_item_wins");
    let calls = self::calls(&events);
    assert_eq!(calls[0].notes.len(), 1, "{:?}", calls[0].notes);
    assert_eq!(
        calls[0].notes[0].kind,
        NoteKind::Normalized { field: "id".into() }
    );
}

#[test]
fn thought_signatures_stay_intact_and_on_their_call() {
    let bytes = fs::read(fixtures_dir().join("gemini/thought_signature.sse")).unwrap();
    let text = String::from_utf8(bytes.clone()).unwrap();
    let start = text.find("\"thoughtSignature\":\"").unwrap() + "\"thoughtSignature\":\"".len();
    let signature = &text[start..start + text[start..].find('"').unwrap()];
    assert!(signature.len() > 100 && signature.contains('+') && signature.contains('/'));
    // Split inside the signature, one byte at a time.
    let (events, error) = run(Format::Gemini, bytes.chunks(1));
    assert!(error.is_none());
    let calls = calls(&events);
    assert_eq!(calls[0].extras["thoughtSignature"], signature);
    assert!(
        calls[1].extras.is_empty(),
        "only the first parallel call carries one"
    );
}

#[test]
fn errors_in_streams_name_the_problem_and_the_line() {
    for (provider, case, message) in [
        (
            "openai",
            "err_provider_error",
            "provider error: The server had an error while processing your request. \
             ({\"error\":{\"message\":\"The server had an error while processing your request.\",\
             \"type\":\"server_error\",\"code\":null}}) (line 3, column 1)",
        ),
        (
            "anthropic",
            "err_overloaded",
            "provider error: Overloaded ({\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\
             \"message\":\"Overloaded\"}}) (line 8, column 1)",
        ),
        (
            "bedrock",
            "err_throttling",
            "provider error: throttlingException: Too many requests, please wait before trying again. (line 2, column 1)",
        ),
        (
            "bedrock",
            "err_binary_exception",
            "provider error: event-stream message 4 (at byte 539): throttlingException: \
             Too many requests, please wait before trying again.",
        ),
    ] {
        let (_, error) = run_fixture(provider, case);
        assert_eq!(error.unwrap().to_string(), message, "{provider}/{case}");
    }
    let (events, error) = run(
        Format::Anthropic,
        [b"data: {\"type\": \"content_block_start\", \n\n".as_slice()],
    );
    assert!(events.is_empty());
    assert_eq!(
        error.unwrap().to_string(),
        "invalid response: the event at stream line 1 is not JSON: EOF while parsing a value (line 1, column 32)"
    );
    let err = Format::Mcp.call_stream(&CallOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown format: mcp is not a provider with call streams"
    );
}

#[test]
fn stream_memory_is_bounded() {
    let options = CallOptions::default().with_limits(toolbridge::Limits::default().with_max_bytes(64));
    let mut stream = Format::Anthropic.call_stream(&options).unwrap();
    let mut events = Vec::new();
    let err = stream.push(&[b'x'; 65], &mut events).unwrap_err();
    assert_eq!(
        err.to_string(),
        "limit exceeded: stream line 1 is longer than 64 bytes (line 1, column 65)"
    );
    let mut assembler = Format::Anthropic.assembler(&options).unwrap();
    assembler
        .push(
            None,
            &json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}}),
            &mut events,
        )
        .unwrap();
    let delta = json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": "y".repeat(40)}});
    assembler.push(None, &delta, &mut events).unwrap();
    let err = assembler.push(None, &delta, &mut events).unwrap_err();
    assert_eq!(
        err.to_string(),
        "limit exceeded: the arguments of the calls in flight exceed 64 bytes"
    );
}

/// What must not depend on how the bytes were split: every event but the
/// deltas, each call's argument text, and the error.
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<String>,
    texts: BTreeMap<usize, String>,
    error: Option<String>,
}

fn outcome((events, error): (Vec<CallEvent>, Option<Error>)) -> Outcome {
    let mut texts = BTreeMap::<usize, String>::new();
    let mut others = Vec::new();
    for event in events {
        match event {
            CallEvent::ArgumentsDelta { index, text, .. } => texts.entry(index).or_default().push_str(&text),
            other => others.push(serde_json::to_string(&other).unwrap()),
        }
    }
    Outcome {
        events: others,
        texts,
        error: error.map(|err| err.to_string()),
    }
}

#[test]
fn one_byte_at_a_time_and_every_two_way_split_change_nothing() {
    for path in all_fixtures() {
        let format = provider(&path);
        let bytes = fs::read(&path).unwrap();
        let whole = outcome(run(format, [bytes.as_slice()]));
        assert_eq!(outcome(run(format, bytes.chunks(1))), whole, "{}", path.display());
        for split in 1..bytes.len() {
            let (a, b) = bytes.split_at(split);
            assert_eq!(
                outcome(run(format, [a, b])),
                whole,
                "{} split at {split}",
                path.display()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_split_of_any_fixture_changes_nothing(sizes in prop::collection::vec(1usize..24, 1..64)) {
        for path in all_fixtures() {
            let format = provider(&path);
            let bytes = fs::read(&path).unwrap();
            let whole = outcome(run(format, [bytes.as_slice()]));
            let mut pieces = Vec::new();
            let (mut at, mut turn) = (0, 0);
            while at < bytes.len() {
                let end = (at + sizes[turn % sizes.len()]).min(bytes.len());
                pieces.push(&bytes[at..end]);
                at = end;
                turn += 1;
            }
            prop_assert_eq!(outcome(run(format, pieces)), whole, "{}", path.display());
        }
    }
}

/// Applies one change to the copy of a call's partial value.
fn apply(copy: &mut Option<Value>, change: &Change) {
    match change {
        Change::Set { at, value } if at.is_root() => *copy = Some(value.clone()),
        Change::Set { at, value } => {
            let text = at.as_str();
            let parent = &text[..text.rfind('/').unwrap()];
            let token = at.tokens().last().unwrap();
            match copy.as_mut().and_then(|root| root.pointer_mut(parent)) {
                Some(Value::Array(items)) => items.push(value.clone()),
                Some(Value::Object(members)) => drop(members.insert(token, value.clone())),
                other => panic!("no container at {parent}: {other:?}"),
            }
        }
        Change::Appended { at, text } => match copy.as_mut().and_then(|root| root.pointer_mut(at.as_str())) {
            Some(Value::String(string)) => string.push_str(text),
            other => panic!("no string at {at}: {other:?}"),
        },
        other => panic!("unknown change {other:?}"),
    }
}

/// True if `next` is `previous` grown at its end (a string by a suffix, a
/// container by members and by its last member growing).
fn extends(previous: &Value, next: &Value) -> bool {
    match (previous, next) {
        (Value::String(a), Value::String(b)) => b.starts_with(a.as_str()),
        (Value::Array(a), Value::Array(b)) => {
            b.len() >= a.len() && a.iter().zip(b).all(|(a, b)| extends(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(key, a)| b.get(key).is_some_and(|b| extends(a, b)))
        }
        (a, b) => a == b,
    }
}

#[test]
fn in_every_fixture_the_changes_extend_to_each_calls_arguments() {
    for path in all_fixtures() {
        let format = provider(&path);
        let bytes = fs::read(&path).unwrap();
        let mut stream = format.call_stream(&CallOptions::default()).unwrap();
        let mut copies = BTreeMap::<usize, Option<Value>>::new();
        let mut events = Vec::new();
        let mut finished = Vec::new();
        let pieces = bytes.chunks(1).map(Some).chain([None]);
        for piece in pieces {
            let pushed = match piece {
                Some(piece) => stream.push(piece, &mut events),
                None => stream.finish(&mut events),
            };
            for event in events.drain(..) {
                match event {
                    CallEvent::ArgumentsDelta { index, changes, .. } => {
                        let copy = copies.entry(index).or_default();
                        let before = copy.clone();
                        changes.iter().for_each(|change| apply(copy, change));
                        if let (Some(before), Some(after)) = (before, copy.as_ref()) {
                            assert!(
                                extends(&before, after),
                                "{}: {after} after {before}",
                                path.display()
                            );
                        }
                    }
                    CallEvent::ArgumentsReplaced { index, changes, .. } => {
                        let copy = copies.entry(index).or_default();
                        changes.iter().for_each(|change| apply(copy, change));
                    }
                    CallEvent::Finished { index, call } => finished.push((index, call)),
                    _ => {}
                }
            }
            for (&index, copy) in &copies {
                if !finished.iter().any(|(done, _)| *done == index) {
                    assert_eq!(
                        stream.partial(index),
                        copy.as_ref(),
                        "{} call {index}",
                        path.display()
                    );
                }
            }
            if pushed.is_err() {
                break;
            }
        }
        for (index, call) in finished {
            // Where the text is plain JSON and the call ended, the changes
            // end at the arguments.
            let plain = call
                .raw_arguments
                .as_deref()
                .and_then(|raw| serde_json::from_str::<Value>(raw).ok())
                .is_some_and(|value| value.is_object());
            if call.arguments.is_ok() && (plain || call.raw_arguments.is_none()) {
                let copy = copies.get(&index).cloned().flatten().unwrap_or(json!({}));
                assert_eq!(
                    Ok(&copy),
                    call.arguments.as_ref(),
                    "{} call {index}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn a_final_copy_that_differs_replaces_the_streamed_text() {
    let (events, error) = run_fixture("openai-responses", "done_replaces");
    assert!(error.is_none());
    let replaced: Vec<String> = events
        .iter()
        .filter(|event| matches!(event, CallEvent::ArgumentsReplaced { .. }))
        .map(|event| serde_json::to_string(event).unwrap())
        .collect();
    assert_eq!(
        replaced,
        [
            r#"{"event":"arguments-replaced","index":0,"text":"{\"city\":\"Lyon\",\"days\":2}","changes":[{"at":"","set":{}},{"at":"/city","set":"Lyon"},{"at":"/days","set":2}]}"#
        ]
    );
    let calls = calls(&events);
    assert_eq!(
        calls[0].raw_arguments.as_deref(),
        Some(r#"{"city":"Lyon","days":2}"#)
    );
    assert_eq!(
        calls[0].notes[0].kind,
        NoteKind::Normalized {
            field: "arguments".into()
        }
    );
}

/// CRC-32 bit by bit (zlib's), apart from the library's table-driven one.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One AWS event-stream message with string headers.
fn eventstream_message(headers: &[(&str, &str)], payload: &[u8]) -> Vec<u8> {
    let mut head = Vec::new();
    for (name, value) in headers {
        head.push(name.len() as u8);
        head.extend_from_slice(name.as_bytes());
        head.push(7);
        head.extend_from_slice(&(value.len() as u16).to_be_bytes());
        head.extend_from_slice(value.as_bytes());
    }
    let total = 12 + head.len() + payload.len() + 4;
    let mut message = Vec::new();
    message.extend_from_slice(&(total as u32).to_be_bytes());
    message.extend_from_slice(&(head.len() as u32).to_be_bytes());
    let prelude_crc = crc32(&message);
    message.extend_from_slice(&prelude_crc.to_be_bytes());
    message.extend_from_slice(&head);
    message.extend_from_slice(payload);
    let crc = crc32(&message);
    message.extend_from_slice(&crc.to_be_bytes());
    message
}

/// A Bedrock event as it comes over HTTP: the member in `:event-type`, its
/// body (with the padding key `p` Bedrock adds) as the payload.
fn bedrock_event(member: &str, mut body: Value, padding: usize) -> Vec<u8> {
    body["p"] = json!("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"[..padding]);
    eventstream_message(
        &[
            (":event-type", member),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        body.to_string().as_bytes(),
    )
}

/// The capture in `fixtures/streams/bedrock/binary.eventstream` and
/// `examples/streams/bedrock.eventstream`: a text block, then a toolUse
/// block whose input is split inside a non-ASCII word.
fn eventstream_capture() -> Vec<u8> {
    let tool = json!({"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", "name": "get_weather"});
    [
        bedrock_event("messageStart", json!({"role": "assistant"}), 5),
        bedrock_event(
            "contentBlockDelta",
            json!({"contentBlockIndex": 0, "delta": {"text": "Checking the weather."}}),
            12,
        ),
        bedrock_event("contentBlockStop", json!({"contentBlockIndex": 0}), 3),
        bedrock_event(
            "contentBlockStart",
            json!({"contentBlockIndex": 1, "start": {"toolUse": tool}}),
            8,
        ),
        bedrock_event(
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "{\"city\": \"Zü"}}}),
            20,
        ),
        bedrock_event(
            "contentBlockDelta",
            json!({"contentBlockIndex": 1, "delta": {"toolUse": {"input": "rich\", \"days\": 3}"}}}),
            1,
        ),
        bedrock_event("contentBlockStop", json!({"contentBlockIndex": 1}), 30),
        bedrock_event("messageStop", json!({"stopReason": "tool_use"}), 6),
        bedrock_event(
            "metadata",
            json!({"usage": {"inputTokens": 30, "outputTokens": 20, "totalTokens": 50}, "metrics": {"latencyMs": 512}}),
            2,
        ),
    ]
    .concat()
}

#[test]
fn the_shipped_binary_captures_are_what_the_test_builds() {
    let built = eventstream_capture();
    let fixture = fs::read(fixtures_dir().join("bedrock/binary.eventstream")).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/streams/bedrock.eventstream");
    assert_eq!(fixture, built);
    assert_eq!(fs::read(example).unwrap(), built);
    assert_eq!(Format::detect_stream(&built[..64]), Some(Format::Bedrock));
    // The SDKs' NDJSON lines still read through the same framer.
    let (events, error) = run_fixture("bedrock", "documented");
    assert!(error.is_none());
    assert_eq!(calls(&events).len(), 1);
}

#[test]
fn binary_event_streams_fail_with_the_message_and_its_offset() {
    let capture = eventstream_capture();
    let first = u32::from_be_bytes(capture[..4].try_into().unwrap()) as usize;
    let second = u32::from_be_bytes(capture[first..first + 4].try_into().unwrap()) as usize;
    let message = |error: Option<Error>| error.map(|error| error.to_string()).unwrap_or_default();

    let mut corrupt = capture.clone();
    corrupt[first + 30] ^= 0x20;
    let (events, error) = run(Format::Bedrock, corrupt.chunks(7));
    assert!(events.is_empty());
    assert_eq!(
        message(error),
        format!(
            "invalid response: event-stream message 2 (at byte {first}): message CRC mismatch: \
             the message says {:#010x}, its bytes give {:#010x}",
            u32::from_be_bytes(capture[first + second - 4..first + second].try_into().unwrap()),
            crc32(&corrupt[first..first + second - 4])
        )
    );

    let (events, error) = run(Format::Bedrock, [&capture[..capture.len() - 5]]);
    assert_eq!(calls(&events).len(), 1, "the call ended before the cut");
    let mut last = 0;
    while last + u32::from_be_bytes(capture[last..last + 4].try_into().unwrap()) as usize != capture.len() {
        last += u32::from_be_bytes(capture[last..last + 4].try_into().unwrap()) as usize;
    }
    assert_eq!(
        message(error),
        format!(
            "invalid response: event-stream message 9 (at byte {last}): the stream ended after {} of its {} bytes",
            capture.len() - 5 - last,
            capture.len() - last
        )
    );

    let not_json = eventstream_message(
        &[(":event-type", "contentBlockDelta"), (":message-type", "event")],
        b"{\"contentBlockIndex\": 0,",
    );
    let (_, error) = run(Format::Bedrock, [&capture[..first], not_json.as_slice()]);
    assert_eq!(
        message(error),
        format!(
            "invalid response: the payload of event-stream message 2 (at byte {first}) is not JSON: \
             EOF while parsing a value (payload line 1, column 24)"
        )
    );

    let error_message = eventstream_message(
        &[
            (":error-code", "InternalFailure"),
            (":error-message", "An internal error occurred"),
            (":message-type", "error"),
        ],
        b"",
    );
    let (_, error) = run(Format::Bedrock, [error_message.as_slice()]);
    assert_eq!(
        message(error),
        "provider error: event-stream message 1 (at byte 0): InternalFailure: An internal error occurred"
    );

    let options = CallOptions::default().with_limits(toolbridge::Limits::default().with_max_bytes(20));
    let mut stream = Format::Bedrock.call_stream(&options).unwrap();
    let error = stream.push(&capture[..12], &mut Vec::new()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "limit exceeded: event-stream message 1 (at byte 0): a payload of 32 bytes, more than 20"
    );
}

#[test]
fn cohere_plans_are_events_and_go_on_the_first_call() {
    let (events, error) = run_fixture("cohere", "documented");
    assert!(error.is_none());
    let plan: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            CallEvent::PlanDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(plan, ["I will", " look up the weather."]);
    assert_eq!(
        Value::Object(calls(&events)[0].extras.clone()),
        json!({"tool_plan": "I will look up the weather."})
    );
}

#[test]
fn with_every_choice_read_the_calls_of_each_choice_are_kept_apart() {
    let bytes = fs::read(fixtures_dir().join("openai/n_choices.sse")).unwrap();
    let options = CallOptions::default().with_all_choices(true);
    let run_all = |pieces: Vec<&[u8]>| {
        let mut stream = Format::OpenAi.call_stream(&options).unwrap();
        let mut events = Vec::new();
        for piece in pieces {
            stream.push(piece, &mut events).unwrap();
        }
        stream.finish(&mut events).unwrap();
        events
    };
    let events = run_all(vec![bytes.as_slice()]);
    let got: Vec<(Option<usize>, String, Value)> = calls(&events)
        .into_iter()
        .map(|call| (call.choice, call.id, call.arguments.unwrap()))
        .collect();
    // Choice 0 ends first (its finish_reason ends only its own call); the
    // fragment of choice 1 with neither index nor id goes to choice 1's call.
    assert_eq!(
        got,
        [
            (Some(0), "call_a0".to_string(), json!({"city": "Quito"})),
            (Some(1), "call_b0".to_string(), json!({"city": "Lima"})),
            (Some(1), "call_b1".to_string(), json!({"tz": "America/Lima"})),
        ]
    );
    let started: Vec<(usize, Option<usize>)> = events
        .iter()
        .filter_map(|event| match event {
            CallEvent::Started { index, choice, .. } => Some((*index, *choice)),
            _ => None,
        })
        .collect();
    assert_eq!(started, [(0, Some(0)), (1, Some(1)), (2, Some(1))]);
    assert_eq!(
        outcome((run_all(bytes.chunks(1).collect()), None)),
        outcome((events, None))
    );
    let whole = Format::OpenAi
        .read_calls_text(
            &fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/calls/openai/n_choices.json"),
            )
            .unwrap(),
            &options,
        )
        .unwrap()
        .value;
    let whole: Vec<(Option<usize>, String, Value)> = whole
        .into_iter()
        .map(|call| (call.choice, call.id, call.arguments.unwrap()))
        .collect();
    assert_eq!(whole, got, "a whole response gives the same calls");
}
