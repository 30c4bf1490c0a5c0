//! Every fixture under `tests/fixtures/<format>/` is read as its format: the
//! canonical tools and the reader's notes are snapshotted together
//! (`read__<case>@<format>.snap`); `err_*` fixtures snapshot their error.
//! Detection must pick the fixture's format (or the format whose shape it shares).

mod common;

use std::fs;

use toolbridge::{Format, ReadOptions, Shape};

#[test]
fn fixtures_read_as_their_format() {
    insta::glob!("fixtures/*/*.*", |path| {
        let format = common::fixture_format(path);
        let text = fs::read_to_string(path).unwrap();
        let origin = path.file_name().unwrap().to_string_lossy().to_string();
        let options = ReadOptions::default()
            .with_from(format)
            .with_origin(origin.clone());
        let snapshot_name = format!("{}@{}", path.file_stem().unwrap().to_string_lossy(), format.id());
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_suffix(format.id());
        let _guard = settings.bind_to_scope();
        let body = match toolbridge::read(&text, &options) {
            Err(err) => {
                assert!(common::is_error_fixture(path), "{origin} failed to read: {err}");
                format!("error: {err}\n")
            }
            Ok(read) => {
                let mut body = String::new();
                let mut failed = false;
                for tool in &read.tools {
                    match tool {
                        Ok(converted) => {
                            body.push_str(&serde_json::to_string_pretty(&converted.value).unwrap());
                            body.push('\n');
                            body.push_str(&common::note_lines(&converted.notes));
                        }
                        Err(err) => {
                            failed = true;
                            body.push_str(&format!("error: {err}\n"));
                        }
                    }
                }
                body.push_str(&common::note_lines(&read.notes));
                assert_eq!(
                    failed || read.tools.is_empty(),
                    common::is_error_fixture(path),
                    "{origin}: only err_* fixtures may fail"
                );
                if read.shape == Shape::Single {
                    assert_eq!(read.tools.len(), 1, "{origin}");
                }
                body
            }
        };
        insta::assert_snapshot!(snapshot_name.split('@').next().unwrap(), body);
    });
}

#[test]
fn detection_finds_the_fixture_format() {
    insta::glob!("fixtures/*/*.*", |path| {
        if common::is_error_fixture(path) {
            return;
        }
        let format = common::fixture_format(path);
        let text = fs::read_to_string(path).unwrap();
        let origin = path.file_name().unwrap().to_string_lossy().to_string();
        let read = toolbridge::read(&text, &ReadOptions::default().with_origin(origin.clone()))
            .unwrap_or_else(|err| panic!("{origin}: {err}"));
        let expected = format.info().same_shape_as.unwrap_or(format);
        if expected == Format::Toolbridge && read.format == Format::Mcp {
            // Every MCP tool is a tool file: one that uses only MCP's fields is
            // detected as MCP, and must read the same either way.
            let as_toolbridge =
                toolbridge::read(&text, &ReadOptions::default().with_from(Format::Toolbridge)).unwrap();
            assert_eq!(
                read.into_converted().unwrap().value,
                as_toolbridge.into_converted().unwrap().value,
                "{origin}"
            );
            return;
        }
        assert_eq!(read.format, expected, "{origin} was detected as {}", read.format);
    });
}
