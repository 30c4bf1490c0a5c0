//! Every canonical fixture (`tests/fixtures/toolbridge/*.json`) is written in
//! every format; each output and its notes are one snapshot
//! (`write__<case>@<format>.snap`), so a new loss shows up in review. Where
//! strict mode changes the output, it gets its own snapshot (`@<format>-strict`).

mod common;

use std::fs;

use toolbridge::{Format, ReadOptions, Tool, WriteOptions};

fn render(tools: &[Tool], format: Format, strict: bool) -> String {
    let written = toolbridge::write(tools, format, &WriteOptions::default().with_strict(strict));
    let mut body = written.output().to_text();
    body.push_str("--- notes ---\n");
    for tool in &written.tools {
        match &tool.result {
            Ok(converted) => body.push_str(&common::note_lines(&converted.notes)),
            Err(err) => body.push_str(&format!("error {}: {err}\n", tool.name)),
        }
    }
    body.push_str(&common::note_lines(&written.notes));
    body
}

#[test]
fn canonical_fixtures_in_every_format() {
    insta::glob!("fixtures/toolbridge/*.json", |path| {
        if common::is_error_fixture(path) {
            return;
        }
        let text = fs::read_to_string(path).unwrap();
        let tools = toolbridge::read(&text, &ReadOptions::default().with_from(Format::Toolbridge))
            .unwrap()
            .into_converted()
            .unwrap()
            .value;
        let case = path.file_stem().unwrap().to_string_lossy().to_string();
        for format in Format::all() {
            let plain = render(&tools, format, false);
            let strict = render(&tools, format, true);
            let mut snapshots = vec![(format.id().to_string(), plain.clone())];
            if strict != plain {
                snapshots.push((format!("{}-strict", format.id()), strict));
            }
            for (suffix, body) in snapshots {
                let mut settings = insta::Settings::clone_current();
                settings.set_snapshot_suffix(suffix);
                settings.set_input_file(path);
                settings.bind(|| insta::assert_snapshot!(case.as_str(), body));
            }
        }
    });
}
