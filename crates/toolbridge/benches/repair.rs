//! Repair speed.
//!
//! Ids: `repair/corpus` repairs every case of the repair corpus
//! (`tests/fixtures/repair/corpus/*.jsonl`, each with its schema if it has
//! one; refusals included) once per iteration, so its throughput is cases
//! per second; `repair/serde-floor` is one `serde_json` parse of each input
//! (failing fast on most), the floor. `repair/code-18k/<shape>` is one
//! argument of 18 KB (a long code string with quotes and line breaks, and 50
//! small objects) whole, cut in half, and with single quotes, to show that
//! time grows with the input linearly.

use std::fs;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::Value;
use toolbridge::{call::repair, Limits};

fn corpus() -> Vec<(String, Option<Value>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repair/corpus");
    let mut paths: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    paths.sort();
    paths
        .iter()
        .flat_map(|path| {
            fs::read_to_string(path)
                .unwrap()
                .lines()
                .map(|line| {
                    let case: Value = serde_json::from_str(line).unwrap();
                    (
                        case["input"].as_str().unwrap().to_string(),
                        case.get("schema").cloned(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

fn large_argument() -> String {
    let code: String = (0..450)
        .map(|i| format!("    print(\"line {i}: a, b\", x[{i}])\\n"))
        .collect();
    let items: Vec<String> = (0..50)
        .map(|i| format!("{{\"id\": {i}, \"tag\": \"t{i}\"}}"))
        .collect();
    format!(
        "{{\"path\": \"main.py\", \"code\": \"{code}\", \"items\": [{}]}}",
        items.join(", ")
    )
}

fn bench(c: &mut Criterion) {
    let cases = corpus();
    let limits = Limits::default();
    let mut group = c.benchmark_group("repair");
    group.throughput(Throughput::Elements(cases.len() as u64));
    group.bench_function("corpus", |b| {
        b.iter(|| {
            for (text, schema) in &cases {
                let _ = std::hint::black_box(repair(text, schema.as_ref(), &limits));
            }
        })
    });
    group.bench_function("serde-floor", |b| {
        b.iter(|| {
            for (text, _) in &cases {
                let _ = std::hint::black_box(serde_json::from_str::<Value>(text));
            }
        })
    });
    let large = large_argument();
    let shapes = [
        ("valid", large.clone()),
        ("truncated", large[..large.len() / 2].to_string()),
        (
            "single-quotes",
            large
                .replace("\\\"", "\u{1}")
                .replace('"', "'")
                .replace('\u{1}', "\\\""),
        ),
    ];
    for (name, text) in shapes {
        assert!(repair(&text, None, &limits).is_ok(), "{name}");
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(format!("code-18k/{name}"), |b| {
            b.iter(|| std::hint::black_box(repair(&text, None, &limits)))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
