//! Raw-text tool calls: a 100 KB response holding calls, per family, parsed
//! whole (`text/whole/<family>`) and streamed in 4-byte pushes
//! (`text/stream/<family>`, each piece's events handled before the next
//! piece reuses their buffers: [`TextStream::push_reusing`]), against
//! `serde_json` parsing the arguments it holds (`text/serde-floor/<family>`:
//! each call's argument JSON, parsed on its own). The target is every row within 5× its floor.
//! `text/stream-no-changes/<family>` is the stream without the arguments'
//! changes ([`TextStream::send_changes`]).
//!
//! `text/adversarial/<family>/<size>`: text made of partial markers and
//! unclosed calls (`<tool_ca`, an unclosed Hermes call, `<think>[TOOL_CALLS]`,
//! …) repeated to 10 KB and 100 KB, streamed in 3-byte pushes: the time
//! must grow in proportion to the size (a rescan per push would make the
//! 100 KB row 100× the 10 KB one, not 10×).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;
use toolbridge::call::CallEvent;
use toolbridge::text::{parse, Family, TextStream};

mod documents;

use documents::{deltas, ADVERSARIAL, ADVERSARIAL_FAMILIES, MANY_CALLS};

const SIZE: usize = 100_000;

/// One call's arguments as JSON: a short field, a number and a longer
/// string with escapes.
fn arguments(n: usize) -> String {
    let body = "fn main() {\\n    println!(\\\"héllo\\\");\\n}\\n".repeat(12);
    format!("{{\"path\": \"src/file_{n}.rs\", \"line\": {n}, \"content\": \"{body}\"}}")
}

/// The `content` argument decoded: what markup without JSON holds raw.
fn raw_body() -> String {
    "fn main() {\n    println!(\"héllo\");\n}\n".repeat(12)
}

/// How a family's markup holds many calls.
enum Layout {
    /// One block per call, with prose before each.
    Blocks(fn(usize, &str) -> String),
    /// One list holding every call, the items joined by `", "`.
    List {
        open: &'static str,
        item: fn(usize, &str) -> String,
        close: &'static str,
    },
}

/// Every family's markup for one `write` call (`args` is its argument JSON).
fn layout(family: Family) -> Layout {
    use Layout::{Blocks, List};
    match family {
        Family::Hermes => Blocks(|n, args| {
            format!("Step {n}.\n<tool_call>\n{{\"name\": \"write\", \"arguments\": {args}}}\n</tool_call>\n")
        }),
        Family::LongCat => Blocks(|n, args| {
            format!("Step {n}.\n<longcat_tool_call>\n{{\"name\": \"write\", \"arguments\": {args}}}\n</longcat_tool_call>\n")
        }),
        Family::InternLm => Blocks(|n, args| {
            format!("Step {n}.<|action_start|><|plugin|>\n{{\"name\": \"write\", \"parameters\": {args}}}<|action_end|>\n")
        }),
        Family::Llama3 => Blocks(|n, args| format!("Step {n}. <function=write>{args}</function>\n")),
        Family::Mistral => Blocks(|n, args| format!("Step {n}.[TOOL_CALLS]write[ARGS]{args}")),
        Family::Kimi => Blocks(|n, args| {
            format!(
                "Step {n}.<|tool_calls_section_begin|><|tool_call_begin|>functions.write:{n}<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>"
            )
        }),
        Family::DeepSeek => Blocks(|n, args| {
            format!(
                "Step {n}.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write<｜tool▁sep｜>{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
            )
        }),
        Family::DeepSeekDsml => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write\">\n<｜DSML｜parameter name=\"path\" string=\"true\">src/file_{n}.rs</｜DSML｜parameter>\n<｜DSML｜parameter name=\"line\" string=\"false\">{n}</｜DSML｜parameter>\n<｜DSML｜parameter name=\"content\" string=\"true\">{body}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n"
            )
        }),
        Family::KimiK3 => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "<|open|>response<|sep|>Step {n}.<|close|>response<|sep|><|open|>tools<|sep|><|open|>call tool=\"write\" index=\"{n}\"<|sep|><|open|>argument key=\"path\" type=\"string\"<|sep|>src/file_{n}.rs<|close|>argument<|sep|><|open|>argument key=\"line\" type=\"integer\"<|sep|>{n}<|close|>argument<|sep|><|open|>argument key=\"content\" type=\"string\"<|sep|>{body}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>"
            )
        }),
        Family::Step3 => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"write\">\n<steptml:parameter name=\"path\">src/file_{n}.rs</steptml:parameter>\n<steptml:parameter name=\"line\">{n}</steptml:parameter>\n<steptml:parameter name=\"content\">{body}</steptml:parameter>\n</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>\n"
            )
        }),
        Family::MiniMaxM3 => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"write\">\n]<]minimax[>[<path>src/file_{n}.rs]<]minimax[>[</path>\n]<]minimax[>[<line>{n}]<]minimax[>[</line>\n]<]minimax[>[<content>{body}]<]minimax[>[</content>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>\n"
            )
        }),
        Family::MiniMax => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<minimax:tool_call>\n<invoke name=\"write\">\n<parameter name=\"path\">src/file_{n}.rs</parameter>\n<parameter name=\"line\">{n}</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n</minimax:tool_call>\n"
            )
        }),
        Family::Dots => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<dots_function_call>\n<invoke name=\"write\">\n<parameter name=\"path\">src/file_{n}.rs</parameter>\n<parameter name=\"line\">{n}</parameter>\n<parameter name=\"content\">{body}</parameter>\n</invoke>\n</dots_function_call>\n"
            )
        }),
        Family::MuseGlimmer => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "<|start|>assistant to=user<|message|>Step {n}.<|eom|><|start|>assistant to=write<|message|><atem:function_calls>\n<atem:invoke name=\"write\">\n<atem:parameter name=\"path\">src/file_{n}.rs</atem:parameter>\n<atem:parameter name=\"line\">{n}</atem:parameter>\n<atem:parameter name=\"content\">{body}</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>"
            )
        }),
        Family::MiniCpm5 => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<function name=\"write\"><param name=\"path\">src/file_{n}.rs</param><param name=\"line\">{n}</param><param name=\"content\"><![CDATA[{body}]]></param></function>\n"
            )
        }),
        Family::Qwen3Coder => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<tool_call>\n<function=write>\n<parameter=path>\nsrc/file_{n}.rs\n</parameter>\n<parameter=line>\n{n}\n</parameter>\n<parameter=content>\n{body}\n</parameter>\n</function>\n</tool_call>\n"
            )
        }),
        Family::SeedOss => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<seed:tool_call>\n<function=write>\n<parameter=path>src/file_{n}.rs</parameter>\n<parameter=line>{n}</parameter>\n<parameter=content>{body}</parameter>\n</function>\n</seed:tool_call>"
            )
        }),
        Family::Glm => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.\n<tool_call>write\n<arg_key>path</arg_key>\n<arg_value>src/file_{n}.rs</arg_value>\n<arg_key>line</arg_key>\n<arg_value>{n}</arg_value>\n<arg_key>content</arg_key>\n<arg_value>{body}</arg_value>\n</tool_call>\n"
            )
        }),
        Family::Gemma4 => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.<|tool_call>call:write{{path:<|\"|>src/file_{n}.rs<|\"|>,line:{n},content:<|\"|>{body}<|\"|>}}<tool_call|>"
            )
        }),
        Family::FunctionGemma => Blocks(|n, _| {
            let body = raw_body();
            format!(
                "Step {n}.<start_function_call>call:write{{path:<escape>src/file_{n}.rs<escape>,line:{n},content:<escape>{body}<escape>}}<end_function_call>"
            )
        }),
        Family::Olmo3 => Blocks(|n, _| {
            let body = "fn main() {\\n    println!(\\\"héllo\\\");\\n}\\n".repeat(12);
            format!("Step {n}.<function_calls>write(path=\"src/file_{n}.rs\", line={n}, content=\"{body}\")</function_calls>\n")
        }),
        Family::Harmony => Blocks(|n, args| {
            format!(
                "<|start|>assistant<|channel|>commentary to=functions.write <|constrain|>json<|message|>{args}<|call|>Step {n}."
            )
        }),
        Family::Inkling => Blocks(|n, args| {
            format!(
                "<|message_model|><|content_text|>Step {n}.<|end_message|><|message_model|>write<|content_invoke_tool_json|>{{\"name\": \"write\", \"args\": {args}}}<|end_message|>"
            )
        }),
        Family::CommandR7b => Blocks(|n, args| {
            format!(
                "Step {n}.<|START_ACTION|>[{{\"tool_call_id\": \"{n}\", \"tool_name\": \"write\", \"parameters\": {args}}}]<|END_ACTION|>"
            )
        }),
        Family::Hunyuan => Blocks(|n, args| {
            format!("Step {n}.<tool_calls>[{{\"name\": \"write\", \"arguments\": {args}}}]</tool_calls>")
        }),
        Family::Lfm2 => Blocks(|n, _| {
            let body = "fn main() {\\n    println!(\\\"héllo\\\");\\n}\\n".repeat(12);
            format!(
                "Step {n}.<|tool_call_start|>[write(path=\"src/file_{n}.rs\", line={n}, content=\"{body}\")]<|tool_call_end|>"
            )
        }),
        Family::GigaChat => Blocks(|n, args| {
            format!("Step {n}.<|function_call|>{{\"name\": \"write\", \"arguments\": {args}}}\n")
        }),
        Family::Apertus => {
            Blocks(|n, args| format!("Step {n}.<|tools_prefix|>[{{\"write\": {args}}}]<|tools_suffix|>\n"))
        }
        Family::GraniteFc => Blocks(|n, args| {
            format!("Step {n}.\n<function_call> {{\"name\": \"write\", \"arguments\": {args}}}\n")
        }),
        Family::Xlam => Blocks(|n, args| {
            format!("Step {n}.\n```json\n[{{\"name\": \"write\", \"arguments\": {args}}}]\n```\n")
        }),
        Family::Granite => List {
            open: "<|tool_call|>[",
            item: |_, args| format!("{{\"name\": \"write\", \"arguments\": {args}}}"),
            close: "]",
        },
        Family::Phi4Mini => List {
            open: "functools[",
            item: |_, args| format!("{{\"name\": \"write\", \"arguments\": {args}}}"),
            close: "]",
        },
        Family::Pythonic => List {
            open: "[",
            item: |n, _| {
                let body = "fn main() {\\n    println!(\\\"héllo\\\");\\n}\\n".repeat(12);
                format!("write(path=\"src/file_{n}.rs\", line={n}, content=\"{body}\")")
            },
            close: "]",
        },
        // `Family` is non-exhaustive: a new family must get markup here.
        other => panic!("no benchmark markup for {other}"),
    }
}

/// A response of about `SIZE` bytes in `family`'s markup, and the argument
/// JSON of its calls.
fn response(family: Family) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut floor = Vec::new();
    let layout = layout(family);
    if let Layout::List { open, .. } = layout {
        text.push_str(open);
    }
    let mut n = 0;
    while text.len() < SIZE {
        let args = arguments(n);
        match layout {
            Layout::Blocks(block) => text.push_str(&block(n, &args)),
            Layout::List { item, .. } => {
                if n > 0 {
                    text.push_str(", ");
                }
                text.push_str(&item(n, &args));
            }
        }
        floor.push(args);
        n += 1;
    }
    if let Layout::List { close, .. } = layout {
        text.push_str(close);
    }
    (text, floor)
}

fn streamed(pieces: &[&str], family: Family, changes: bool) -> usize {
    let mut stream = TextStream::new(Some(family), None).send_changes(changes);
    let mut events = Vec::new();
    let mut calls = 0;
    for piece in pieces {
        stream.push_reusing(piece, &mut events).unwrap();
        calls += events
            .iter()
            .filter(|event| matches!(event, CallEvent::Finished { .. }))
            .count();
    }
    events.clear();
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
        let parsed = parse(&text, family, None).unwrap();
        let count = parsed.calls.len();
        assert_eq!(count, floor.len(), "{family}");
        assert!(parsed.calls.iter().all(|call| call.arguments.is_ok()), "{family}");
        let pieces = deltas(&text, 4);
        assert_eq!(streamed(&pieces, family, true), count, "{family}");
        assert_eq!(streamed(&pieces, family, false), count, "{family}");
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
            b.iter(|| streamed(black_box(&pieces), family, true))
        });
        group.bench_function(BenchmarkId::new("stream-no-changes", family), |b| {
            b.iter(|| streamed(black_box(&pieces), family, false))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("text/adversarial");
    group.sample_size(10);
    let unit = ADVERSARIAL.concat();
    for family in ADVERSARIAL_FAMILIES {
        for (label, size) in [("10KB", 10_000), ("100KB", 100_000)] {
            let text = unit.repeat(size / unit.len() + 1);
            let pieces = deltas(&text, 3);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(BenchmarkId::new(family.to_string(), label), |b| {
                b.iter(|| streamed(black_box(&pieces), family, true))
            });
        }
    }
    group.finish();

    let mut group = c.benchmark_group("text/many-calls");
    group.sample_size(10);
    for (family, open, call) in MANY_CALLS {
        for (label, size) in [("10KB", 10_000), ("100KB", 100_000)] {
            let text = format!("{open}{}", call.repeat(size / call.len() + 1));
            let pieces = deltas(&text, 3);
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.bench_function(BenchmarkId::new(family.to_string(), label), |b| {
                b.iter(|| streamed(black_box(&pieces), family, true))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
