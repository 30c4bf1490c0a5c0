//! Conversion speed: reading a tool set and writing it in each format.
//!
//! Ids: `convert/read/<format>`, `convert/<format>/write`, `convert/<format>/write-strict`,
//! `convert/<format>/convert` (the whole `toolbridge::convert` of an MCP
//! `tools/list` to that format: read, write, text) beside `convert/serde-floor`
//! (one `serde_json` parse and pretty-print of the same document, the floor).
//! The input is the README's examples repeated to 100 tools (an MCP server's
//! worth), so the numbers are per 100-tool `tools/list`. `lower/<dialect>/<width>`
//! lowers one schema of 100 or 1000 properties, to show how lowering scales.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use toolbridge::schema::Dialect;
use toolbridge::{Format, Limits, Notes, ReadOptions, Tool, WriteOptions};

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
                .into_converted()
                .unwrap()
                .value
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
    let mcp_list = toolbridge::write(&tools, Format::Mcp, &WriteOptions::default())
        .output()
        .to_text();
    group.bench_function("serde-floor", |b| {
        b.iter(|| {
            let value: serde_json::Value = serde_json::from_str(&mcp_list).unwrap();
            serde_json::to_string_pretty(&value).unwrap()
        })
    });
    let from_mcp = toolbridge::Options::default().with_read(ReadOptions::default().with_from(Format::Mcp));
    for format in Format::all() {
        group.bench_function(format!("{}/convert", format.id()), |b| {
            b.iter(|| toolbridge::convert(&mcp_list, format, &from_mcp).unwrap())
        });
        let written = toolbridge::write(&tools, format, &WriteOptions::default());
        let text = written.output().to_text();
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

/// A schema with `width` optional properties, each an object using one
/// shared `$ref`: how lowering scales with the size of one schema.
fn wide_schema(width: usize) -> serde_json::Value {
    let properties: serde_json::Map<String, serde_json::Value> = (0..width)
        .map(|i| {
            (
                format!("p{i}"),
                serde_json::json!({"$ref": "#/$defs/range", "description": "A range."}),
            )
        })
        .collect();
    serde_json::json!({"type": "object", "properties": properties, "$defs": {"range": {"type": "object",
        "properties": {"from": {"type": "string", "format": "date"}, "to": {"type": ["string", "null"]}},
        "required": ["from"]}}})
}

fn lower(c: &mut Criterion) {
    let mut group = c.benchmark_group("lower");
    let at = toolbridge::Pointer::root().key("inputSchema");
    for width in [100, 1000] {
        let schema = wide_schema(width);
        group.throughput(Throughput::Elements(width as u64));
        for (id, dialect) in [
            ("openai-strict", Dialect::OpenAi { strict: true }),
            ("gemini", Dialect::GeminiOpenApi),
        ] {
            group.bench_with_input(BenchmarkId::new(id, width), &schema, |b, schema| {
                b.iter(|| {
                    let mut notes = Notes::new();
                    toolbridge::schema::lower(schema, dialect, &at, &Limits::default(), &mut notes).unwrap()
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, convert, lower);
criterion_main!(benches);
