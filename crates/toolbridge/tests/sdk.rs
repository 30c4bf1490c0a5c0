//! Our output checked against each provider's own published SDK types, and
//! lint's error verdict held to theirs.
//!
//! Every tool of every fixture that reads (`tests/fixtures/<format>/*`, not
//! `err_*`) and of every example (`examples/tools/*.json`) is written in each format of
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

use serde_json::{json, Value};
use toolbridge::{Format, Level, ReadOptions, Tool, WriteOptions};

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

/// Every tool of every fixture that reads, of every format, and of every
/// example, in directory and file-name order.
fn fixture_tools() -> Vec<Tool> {
    let mut files = Vec::new();
    let fixtures = crate_dir().join("tests/fixtures");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&fixtures)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|dir| {
            dir.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| Format::from_id(name).is_ok())
        })
        .collect();
    dirs.sort();
    dirs.push(workspace_root().join("examples/tools"));
    for dir in dirs {
        let mut found: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.is_file())
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
            &ReadOptions::default().with_origin(path.display().to_string()),
        )
        .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        // A fixture may hold a tool that fails to read on purpose; the
        // others are checked.
        tools.extend(read.ok_tools().cloned());
    }
    tools
}

/// Tools that some targets refuse, so that both directions of the
/// agreement are exercised: a `$ref` to nothing (every format), nesting and
/// an enum past OpenAI strict mode's limits, no required parameter (Cohere
/// strict tools).
fn tools_lint_finds_errors_in() -> Vec<Tool> {
    let mut deep = json!({"type": "string"});
    for level in 0..11 {
        deep = json!({"type": "object", "properties": {format!("l{level}"): deep}, "required": [format!("l{level}")]});
    }
    let values: Vec<String> = (0..1001).map(|n| format!("v{n}")).collect();
    [
        json!({"name": "dangling_ref", "description": "Points at a definition that is not there.",
            "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/missing"}}, "required": ["x"]}}),
        json!({"name": "deep_nesting", "description": "Nested twelve levels deep.",
            "inputSchema": {"type": "object", "properties": {"root": deep}, "required": ["root"]}}),
        json!({"name": "big_enum", "description": "One of 1001 values.",
            "inputSchema": {"type": "object", "properties": {"v": {"type": "string", "enum": values}}, "required": ["v"]}}),
        json!({"name": "all_optional", "description": "Nothing required.",
            "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}),
    ]
    .into_iter()
    .map(|value| serde_json::from_value(value).unwrap())
    .collect()
}

/// What lint says of one written document: for each entry in it, in order,
/// the tool's name and its error notes (empty: lint finds no error), and the
/// set's own error notes.
struct LintVerdict {
    file: PathBuf,
    entries: Vec<(String, Vec<String>)>,
    set_errors: Vec<String>,
}

/// Writes `tools` as `format` into `dir`, plain and strict: one document
/// each, with lint's verdict on every entry. A tool that cannot be written
/// is not in the document (its error is lint's verdict, and the SDK has
/// nothing to see).
fn write_documents(tools: &[Tool], format: Format, dir: &Path) -> Vec<LintVerdict> {
    let mut verdicts = Vec::new();
    for strict in [false, true] {
        let written = toolbridge::write(tools, format, &WriteOptions::default().with_strict(strict));
        let errors = |notes: &[toolbridge::Note]| -> Vec<String> {
            notes
                .iter()
                .filter(|note| note.level() == Level::Error)
                .map(|note| format!("{} ({})", note.message, note.at))
                .collect()
        };
        let entries = written
            .tools
            .iter()
            .filter_map(|tool| {
                let converted = tool.result.as_ref().ok()?;
                Some((tool.name.clone(), errors(&converted.notes)))
            })
            .collect();
        let suffix = if strict { "-strict" } else { "" };
        let file = dir.join(format!("{}{suffix}.json", format.id()));
        fs::write(&file, written.output().to_text()).unwrap();
        verdicts.push(LintVerdict {
            file,
            entries,
            set_errors: errors(&written.notes),
        });
    }
    verdicts
}

/// The SDK check's verdict on one file (its `verdict {…}` line).
#[derive(serde::Deserialize)]
struct SdkVerdict {
    file: String,
    entries: usize,
    rejected: Vec<Value>,
    document: bool,
}

/// Where lint's verdict and the SDK's differ, one sentence each.
fn disagreements(id: &str, lint: &[LintVerdict], stdout: &str, stderr: &str) -> Vec<String> {
    let sdk: Vec<SdkVerdict> = stdout
        .lines()
        .filter_map(|line| line.strip_prefix("verdict "))
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
    let mut found = Vec::new();
    for verdict in lint {
        let file = verdict.file.display().to_string();
        let Some(sdk) = sdk.iter().find(|sdk| sdk.file == file) else {
            found.push(format!(
                "{id}: the SDK check gave no verdict on {file}:\n{stdout}{stderr}"
            ));
            continue;
        };
        if sdk.entries != verdict.entries.len() {
            found.push(format!(
                "{file}: the SDK check saw {} entries, toolbridge wrote {}",
                sdk.entries,
                verdict.entries.len()
            ));
            continue;
        }
        let problems_of = |index: usize| -> String {
            stderr
                .lines()
                .filter(|line| {
                    line.starts_with(&file) && line.contains(&format!("entry {index} "))
                        || line.contains(&format!("[{index}] ("))
                })
                .collect::<Vec<_>>()
                .join("\n    ")
        };
        for (index, (name, errors)) in verdict.entries.iter().enumerate() {
            let rejected = sdk.rejected.iter().any(|at| at.as_u64() == Some(index as u64));
            match (errors.is_empty(), rejected) {
                (true, true) => found.push(format!(
                    "{file}: entry {index} ({name}): the SDK rejects it but lint finds no error:\n    {}",
                    problems_of(index)
                )),
                (false, false) => found.push(format!(
                    "{file}: entry {index} ({name}): lint says error but the SDK accepts it: {}",
                    errors.join("; ")
                )),
                _ => {}
            }
        }
        if sdk.document == verdict.set_errors.is_empty() {
            found.push(format!(
                "{file}: the document as a whole: SDK rejects: {}, lint errors: {:?}",
                sdk.document, verdict.set_errors
            ));
        }
    }
    found
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

/// Lint's error verdict equals the receiver's, both ways: an entry lint
/// finds an error in is one the provider's SDK (with the rules its API
/// applies, in `tests/sdk/`) refuses, and every other entry it accepts.
#[test]
fn lint_error_verdicts_agree_with_the_provider_sdks() {
    let python = sdk_python();
    let mut tools = fixture_tools();
    tools.extend(tools_lint_finds_errors_in());
    assert!(tools.len() >= 100, "only {} fixture tools found", tools.len());
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sdk");
    fs::create_dir_all(&dir).unwrap();
    let runs: Vec<(&str, Vec<LintVerdict>, Child)> = SDK_CHECKED_FORMATS
        .iter()
        .map(|(id, script)| {
            let format = Format::from_id(id).unwrap_or_else(|err| panic!("SDK_CHECKED_FORMATS: {err}"));
            let verdicts = write_documents(&tools, format, &dir);
            let files: Vec<PathBuf> = verdicts.iter().map(|verdict| verdict.file.clone()).collect();
            (*id, verdicts, spawn(&python, &sdk_dir().join(script), &files))
        })
        .collect();
    let mut failures = Vec::new();
    let mut errors_seen = 0;
    for (id, verdicts, child) in runs {
        let output = child.wait_with_output().unwrap();
        match output.status.code() {
            Some(0 | 1) => {}
            _ => {
                failures.push(format!("{id} ({}):\n{}", output.status, describe(&output)));
                continue;
            }
        }
        errors_seen += verdicts
            .iter()
            .flat_map(|verdict| &verdict.entries)
            .filter(|(_, errors)| !errors.is_empty())
            .count();
        failures.extend(disagreements(
            id,
            &verdicts,
            &String::from_utf8_lossy(&output.stdout),
            &String::from_utf8_lossy(&output.stderr),
        ));
    }
    assert!(
        failures.is_empty(),
        "lint and the provider SDK checks disagree (exit 2: a file is not of the format's shape, \
         3: a package is missing); the written files are in {}:\n\n{}",
        dir.display(),
        failures.join("\n")
    );
    assert!(
        errors_seen >= 5,
        "only {errors_seen} entries with lint errors: the test would not see a disagreement that way"
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
