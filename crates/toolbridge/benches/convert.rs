//! Conversion speed: reading a tool set and writing it in each format.
//!
//! Ids: `convert/read/<format>`, `convert/<format>/write`, `convert/<format>/write-strict`.
//! The input is the README's examples repeated to 100 tools (an MCP server's
//! worth), so the numbers are per 100-tool `tools/list`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolbridge::{Format, ReadOptions, Tool, WriteOptions};

const EXAMPLES: [&str; 4] = [
    include_str!("../../../examples/tools/get_weather.json"),
    include_str!("../../../examples/tools/search_issues.json"),
    include_str!("../../../examples/tools/delete_file.json"),
    include_str!("../../../examples/tools/summarize_text.json"),
];

fn hundred_tools() -> Vec<Tool> {
    let examples: Vec<Tool> = EXAMPLES
        .iter()
        .flat_map(|text| {
            toolbridge::read(text, &ReadOptions::default())
                .unwrap()
                .into_tools()
        })
        .collect();
    (0..100)
        .map(|i| {
            let mut tool = examples[i % examples.len()].clone();
            tool.name = format!("{}_{i}", tool.name);
            tool
        })
        .collect()
}

fn convert(c: &mut Criterion) {
    let tools = hundred_tools();
    let mut group = c.benchmark_group("convert");
    group.throughput(Throughput::Elements(tools.len() as u64));
    for format in Format::all() {
        let written = toolbridge::write(&tools, format, &WriteOptions::default());
        let text = written.output.to_text();
        group.bench_with_input(BenchmarkId::new("read", format.id()), &text, |b, text| {
            let options = ReadOptions::default().with_from(format);
            b.iter(|| toolbridge::read(text, &options).unwrap())
        });
        group.bench_function(format!("{}/write", format.id()), |b| {
            b.iter(|| toolbridge::write(&tools, format, &WriteOptions::default()))
        });
        group.bench_function(format!("{}/write-strict", format.id()), |b| {
            b.iter(|| toolbridge::write(&tools, format, &WriteOptions::default().with_strict(true)))
        });
    }
    group.finish();
}

criterion_group!(benches, convert);
criterion_main!(benches);
