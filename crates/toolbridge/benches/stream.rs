//! Streaming speed: tool-call arguments fed to the partial-JSON parser in
//! small deltas, with the partial value and the changes taken after every
//! delta.
//!
//! Ids: `stream/partial/<shape>/<size>/<chunk>` streams the document in
//! `<chunk>`-byte deltas (4 or 32, moved back to a character boundary when a
//! cut would split one) through [`PartialJson::feed`] and
//! [`PartialJson::finish`]; `stream/serde-floor/<shape>/<size>` is one
//! `serde_json` parse of the whole document, the floor. Shapes: `string`, a
//! file write whose `content` is a long code string full of escapes;
//! `nested`, an array of small objects with nested arrays and objects.
//! Sizes: 1 KB, 10 KB, 100 KB, 1 MB.
//!
//! The target is every `partial` row within 10× its `serde-floor`, and the
//! time linear in size.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use serde_json::Value;
use toolbridge::call::PartialJson;

mod documents;

use documents::{deltas, document, SHAPES};

const SIZES: [(&str, usize); 4] = [
    ("1KB", 1_000),
    ("10KB", 10_000),
    ("100KB", 100_000),
    ("1MB", 1_000_000),
];
const CHUNKS: [usize; 2] = [4, 32];

fn stream(deltas: &[&str]) -> Value {
    let mut parser = PartialJson::new();
    let mut changes = Vec::new();
    for delta in deltas {
        parser.feed(delta, &mut changes).unwrap();
        black_box((parser.value(), &changes));
    }
    parser.finish().unwrap()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("stream");
    for shape in SHAPES {
        for (size_name, size) in SIZES {
            let text = document(shape, size);
            let expected: Value = serde_json::from_str(&text).unwrap();
            group.throughput(Throughput::Bytes(text.len() as u64));
            group.sample_size(if size >= 100_000 { 10 } else { 50 });
            group.bench_function(BenchmarkId::new(format!("serde-floor/{shape}"), size_name), |b| {
                b.iter(|| serde_json::from_str::<Value>(black_box(&text)).unwrap())
            });
            for chunk in CHUNKS {
                let deltas = deltas(&text, chunk);
                assert_eq!(stream(&deltas), expected);
                group.bench_function(
                    BenchmarkId::new(format!("partial/{shape}/{size_name}"), chunk),
                    |b| b.iter(|| stream(black_box(&deltas))),
                );
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
