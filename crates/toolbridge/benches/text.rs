//! Raw-text tool calls: a 100 KB response holding calls, per family, parsed
//! whole (`text/whole/<family>`) and streamed in 4-byte pushes
//! (`text/stream/<family>`), against `serde_json` parsing the arguments it
//! holds (`text/serde-floor/<family>`: each call's argument JSON, parsed on
//! its own). The target is every row within 5× its floor.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;
use toolbridge::call::CallEvent;
use toolbridge::text::{parse, Family, TextStream};

const SIZE: usize = 100_000;

/// One call's arguments: a short field and a longer string with escapes.
fn arguments(n: usize) -> String {
    let body = "fn main() {\\n    println!(\\\"héllo\\\");\\n}\\n".repeat(12);
    format!("{{\"path\": \"src/file_{n}.rs\", \"line\": {n}, \"content\": \"{body}\"}}")
}

/// One call in `family`'s markup (with prose before it), and its argument
/// JSON when the markup holds it as JSON.
fn call(family: Family, n: usize) -> (String, Option<String>) {
    let args = arguments(n);
    let json = Some(args.clone());
    let text = match family {
        Family::Hermes => format!("Step {n}.\n<tool_call>\n{{\"name\": \"write\", \"arguments\": {args}}}\n</tool_call>\n"),
        Family::Llama3 => format!("Step {n}. <function=write>{args}</function>\n"),
        Family::Mistral => format!("Step {n}.[TOOL_CALLS]write[ARGS]{args}"),
        Family::Kimi => format!(
            "Step {n}.<|tool_calls_section_begin|><|tool_call_begin|>functions.write:{n}<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
        ),
        Family::DeepSeek => format!(
            "Step {n}.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        ),
        Family::Qwen3Coder => {
            let body = "fn main() {\n    println!(\"héllo\");\n}\n".repeat(12);
            let text = format!(
                "Step {n}.\n<tool_call>\n<function=write>\n<parameter=path>\nsrc/file_{n}.rs\n</parameter>\n<parameter=line>\n{n}\n</parameter>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>\n"
            );
            return (text, Some(serde_json::json!({"path": format!("src/file_{n}.rs"), "line": n, "content": body}).to_string()));
        }
        Family::Glm => {
            let body = "fn main() {\n    println!(\"héllo\");\n}\n".repeat(12);
            let text = format!(
                "Step {n}.\n<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>src/file_{n}.rs</arg_value>\n<arg_key>line</arg_key>\n<arg_value>{n}</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{body}</arg_value>\n</tool_call>\n"
            );
            return (text, Some(serde_json::json!({"path": format!("src/file_{n}.rs"), "line": n, "content": body}).to_string()));
        }
        _ => return (String::new(), None),
    };
    (text, json)
}

/// A response of about `SIZE` bytes in `family`'s markup, and the argument
/// JSON of its calls. Pythonic holds one list of calls.
fn response(family: Family) -> (String, Vec<String>) {
    if family == Family::Pythonic {
        let mut text = String::from("[");
        let mut floor = Vec::new();
        let mut n = 0;
        while text.len() < SIZE {
            let body = "fn main() {\\n    println!(\\\"héllo\\\");\\n}\\n".repeat(12);
            if n > 0 {
                text.push_str(", ");
            }
            text.push_str(&format!(
                "write(path=\"src/file_{n}.rs\", line={n}, content=\"{body}\")"
            ));
            floor.push(arguments(n));
            n += 1;
        }
        text.push(']');
        return (text, floor);
    }
    let mut text = String::new();
    let mut floor = Vec::new();
    let mut n = 0;
    while text.len() < SIZE {
        let (call, json) = call(family, n);
        text.push_str(&call);
        floor.extend(json);
        n += 1;
    }
    (text, floor)
}

/// `text` in pushes of about `size` bytes, at char boundaries.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[at..end]);
        at = end;
    }
    pieces
}

fn streamed(pieces: &[&str], family: Family) -> usize {
    let mut stream = TextStream::new(Some(family), None);
    let mut events = Vec::new();
    let mut calls = 0;
    for piece in pieces {
        stream.push(piece, &mut events).unwrap();
        calls += events
            .iter()
            .filter(|event| matches!(event, CallEvent::Finished { .. }))
            .count();
        events.clear();
    }
    stream.finish(&mut events).unwrap();
    calls
        + events
            .iter()
            .filter(|event| matches!(event, CallEvent::Finished { .. }))
            .count()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("text");
    group.sample_size(20);
    for info in toolbridge::text::FAMILIES {
        let family = info.family;
        let (text, floor) = response(family);
        let count = parse(&text, family, None).unwrap().calls.len();
        assert_eq!(count, floor.len(), "{family}");
        let pieces = pieces(&text, 4);
        assert_eq!(streamed(&pieces, family), count, "{family}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(BenchmarkId::new("serde-floor", family), |b| {
            b.iter(|| {
                for json in &floor {
                    black_box(serde_json::from_str::<Value>(black_box(json)).unwrap());
                }
            })
        });
        group.bench_function(BenchmarkId::new("whole", family), |b| {
            b.iter(|| parse(black_box(&text), family, None).unwrap())
        });
        group.bench_function(BenchmarkId::new("stream", family), |b| {
            b.iter(|| streamed(black_box(&pieces), family))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
