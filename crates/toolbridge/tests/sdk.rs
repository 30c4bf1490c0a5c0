//! Our output checked against each provider's own published SDK types.
//!
//! Every canonical fixture (`tests/fixtures/toolbridge/*.json`, not `err_*`)
//! and every example (`examples/tools/*.json`) is written in each format of
//! [`SDK_CHECKED_FORMATS`], once as it is and once `--strict`, into one JSON
//! file per (format, strictness) under `CARGO_TARGET_TMPDIR/sdk/`; then
//! `tests/sdk/check_<format>.py` validates every entry of both files with the
//! provider's Python SDK (versions pinned in `tests/sdk/requirements.txt`),
//! one Python process per format.
//!
//! The interpreter is `$TOOLBRIDGE_SDK_PYTHON`, else `<workspace>/.venv/bin/python`;
//! `scripts/test` creates that venv from requirements.txt and exports the
//! variable. A missing interpreter or package fails the test (never a skip).

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use toolbridge::{Format, ReadOptions, Tool, WriteOptions};

/// The formats whose written output is checked, with the script that checks
/// it. A format is listed once its writer is registered in `FORMATS`; a
/// script whose format is registered but is neither listed here nor run by
/// another test file fails [`every_registered_format_with_a_script_is_checked`].
const SDK_CHECKED_FORMATS: &[(&str, &str)] = &[
    ("openai", "check_openai.py"),
    ("openai-responses", "check_openai_responses.py"),
    ("anthropic", "check_anthropic.py"),
    ("gemini", "check_gemini.py"),
    ("gemini-json", "check_gemini_json.py"),
    ("bedrock", "check_bedrock.py"),
    ("mcp", "check_mcp.py"),
    ("ollama", "check_ollama.py"),
    ("mistral", "check_mistral.py"),
    ("cohere", "check_cohere.py"),
];

const VENV_HELP: &str = "create it from the workspace root with\n  \
     python3 -m venv .venv && .venv/bin/pip install -r crates/toolbridge/tests/sdk/requirements.txt\n\
     (scripts/test does this and exports TOOLBRIDGE_SDK_PYTHON), or set TOOLBRIDGE_SDK_PYTHON \
     to an interpreter that has those packages";

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn workspace_root() -> PathBuf {
    crate_dir().join("../..")
}

fn sdk_dir() -> PathBuf {
    crate_dir().join("tests/sdk")
}

/// The interpreter that has the SDKs; panics, saying how to make one, if it
/// cannot be run.
fn sdk_python() -> PathBuf {
    let python = env::var_os("TOOLBRIDGE_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join(".venv/bin/python"));
    match Command::new(&python).arg("--version").output() {
        Ok(output) if output.status.success() => python,
        Ok(output) => panic!(
            "the SDK checks' Python {} does not run ({}): {}\n{VENV_HELP}",
            python.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ),
        Err(err) => panic!(
            "the SDK checks need a Python with the providers' SDKs, and {} cannot be run: {err}\n{VENV_HELP}",
            python.display()
        ),
    }
}

/// Every tool of every canonical fixture and example, in file-name order.
fn fixture_tools() -> Vec<Tool> {
    let mut files = Vec::new();
    for dir in [
        crate_dir().join("tests/fixtures/toolbridge"),
        workspace_root().join("examples/tools"),
    ] {
        let mut found: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
            .filter(|path| {
                !path
                    .file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("err_"))
            })
            .collect();
        found.sort();
        files.extend(found);
    }
    let mut tools = Vec::new();
    for path in files {
        let text = fs::read_to_string(&path).unwrap();
        let read = toolbridge::read(
            &text,
            &ReadOptions::default()
                .with_from(Format::Toolbridge)
                .with_origin(path.display().to_string()),
        )
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        for tool in read.tools {
            tools.push(
                tool.unwrap_or_else(|err| panic!("{}: {err}", path.display()))
                    .value,
            );
        }
    }
    tools
}

/// Writes `tools` as `format` into `dir`, plain and strict; returns the two
/// files. Panics if a tool could not be written: it would go unchecked.
fn write_documents(tools: &[Tool], format: Format, dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for strict in [false, true] {
        let written = toolbridge::write(tools, format, &WriteOptions::default().with_strict(strict));
        let failures: Vec<String> = written
            .tools
            .iter()
            .filter_map(|tool| {
                tool.result
                    .as_ref()
                    .err()
                    .map(|err| format!("{}: {err}", tool.name))
            })
            .collect();
        assert!(
            failures.is_empty(),
            "{format} (strict: {strict}) could not write every fixture, so the SDK would not see them:\n{}",
            failures.join("\n")
        );
        let suffix = if strict { "-strict" } else { "" };
        let path = dir.join(format!("{}{suffix}.json", format.id()));
        fs::write(&path, written.output().to_text()).unwrap();
        files.push(path);
    }
    files
}

fn spawn(python: &Path, script: &Path, args: &[PathBuf]) -> Child {
    Command::new(python)
        .arg(script)
        .args(args)
        .current_dir(workspace_root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|err| {
            panic!(
                "cannot start {} {}: {err}\n{VENV_HELP}",
                python.display(),
                script.display()
            )
        })
}

fn describe(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn written_tools_pass_the_provider_sdks() {
    let python = sdk_python();
    let tools = fixture_tools();
    assert!(tools.len() >= 10, "only {} fixture tools found", tools.len());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sdk");
    fs::create_dir_all(&dir).unwrap();
    let runs: Vec<(&str, Child)> = SDK_CHECKED_FORMATS
        .iter()
        .map(|(id, script)| {
            let format = Format::from_id(id).unwrap_or_else(|err| panic!("SDK_CHECKED_FORMATS: {err}"));
            let files = write_documents(&tools, format, &dir);
            (*id, spawn(&python, &sdk_dir().join(script), &files))
        })
        .collect();
    let mut failures = Vec::new();
    for (id, child) in runs {
        let output = child.wait_with_output().unwrap();
        if !output.status.success() {
            failures.push(format!("{id} ({}):\n{}", output.status, describe(&output)));
        }
    }
    assert!(
        failures.is_empty(),
        "the provider SDK checks failed (exit 1: an SDK rejected entries, 2: a file is not of the \
         format's shape, 3: a package is missing); the written files are in {}:\n\n{}",
        dir.display(),
        failures.join("\n")
    );
}

#[test]
fn sdk_checks_accept_good_samples_and_reject_bad_ones() {
    let python = sdk_python();
    let output = spawn(&python, &sdk_dir().join("selftest.py"), &[])
        .wait_with_output()
        .unwrap();
    assert!(
        output.status.success(),
        "tests/sdk/selftest.py failed ({}):\n{}",
        output.status,
        describe(&output)
    );
}

#[test]
fn every_registered_format_with_a_script_is_checked() {
    for (id, script) in SDK_CHECKED_FORMATS {
        assert!(sdk_dir().join(script).is_file(), "{script} does not exist");
        assert_eq!(*script, format!("check_{}.py", id.replace('-', "_")));
    }
    // A script may be driven by a test file of its own (tests/sdk_<x>.rs).
    let other_tests: String = fs::read_dir(crate_dir().join("tests"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs") && !path.ends_with("sdk.rs"))
        .map(|path| fs::read_to_string(path).unwrap())
        .collect();
    let mut unlisted = Vec::new();
    for entry in fs::read_dir(sdk_dir()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        let Some(id) = name
            .strip_prefix("check_")
            .and_then(|rest| rest.strip_suffix(".py"))
            .map(|stem| stem.replace('_', "-"))
        else {
            continue;
        };
        let listed = SDK_CHECKED_FORMATS.iter().any(|(listed, _)| *listed == id);
        if Format::from_id(&id).is_ok() && !listed && !other_tests.contains(&name) {
            unlisted.push(format!("(\"{id}\", \"{name}\")"));
        }
    }
    unlisted.sort();
    assert!(
        unlisted.is_empty(),
        "these formats are registered and have an SDK check; add them to SDK_CHECKED_FORMATS in tests/sdk.rs: {}",
        unlisted.join(", ")
    );
}
