//! Pandoc-style transcript tests: every fenced block in `tests/cmd/*.md` is a
//! command line (`% toolbridge …`, run from the workspace root), optional
//! standard input (`< ` lines), the expected standard output (plain lines),
//! the expected standard error (`2> ` lines) and the exit status (`=> N`).
//! The binary under test is first on `PATH`, so `toolbridge` inside a
//! command (`import --mcp "toolbridge serve examples/tools"`) is the same one.
//!
//! `UPDATE_TRANSCRIPTS=1 cargo test -p toolbridge-cli --test transcripts`
//! rewrites the expectations from what the commands print; review the diff.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Case {
    command: String,
    stdin: Vec<String>,
    stdout: Vec<String>,
    stderr: Vec<String>,
    status: i32,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `PATH` with the folder of the toolbridge under test first, so that a
/// command a transcript hands to toolbridge (`import --mcp "toolbridge serve …"`)
/// runs this same binary.
fn path_with_toolbridge() -> std::ffi::OsString {
    let bin = Path::new(env!("CARGO_BIN_EXE_toolbridge"))
        .parent()
        .expect("the binary is in a folder")
        .to_path_buf();
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&rest)))
        .expect("the folders join into PATH")
}

fn parse_block(lines: &[&str]) -> Case {
    let mut case = Case {
        command: String::new(),
        stdin: Vec::new(),
        stdout: Vec::new(),
        stderr: Vec::new(),
        status: 0,
    };
    for line in lines {
        if let Some(command) = line.strip_prefix("% ") {
            case.command = command.to_string();
        } else if let Some(input) = line.strip_prefix("< ") {
            case.stdin.push(input.to_string());
        } else if *line == "<" {
            case.stdin.push(String::new());
        } else if let Some(error) = line.strip_prefix("2> ") {
            case.stderr.push(error.to_string());
        } else if let Some(status) = line.strip_prefix("=> ") {
            case.status = status.trim().parse().expect("=> takes an exit status");
        } else {
            case.stdout.push(line.to_string());
        }
    }
    assert!(
        !case.command.is_empty(),
        "a transcript block needs a `% ` command line"
    );
    case
}

fn run(case: &Case) -> (Vec<String>, Vec<String>, i32) {
    let words = split_words(&case.command);
    assert_eq!(words[0], "toolbridge", "transcripts run the toolbridge command");
    let mut child = Command::new(env!("CARGO_BIN_EXE_toolbridge"))
        .args(&words[1..])
        .env("PATH", path_with_toolbridge())
        .current_dir(workspace_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input: String = case.stdin.iter().map(|line| format!("{line}\n")).collect();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let lines = |bytes: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .lines()
            .map(str::to_string)
            .collect()
    };
    (
        lines(&output.stdout),
        lines(&output.stderr),
        output.status.code().unwrap_or(-1),
    )
}

/// Splits a command line on spaces, honouring single quotes.
fn split_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn render(case: &Case, stdout: &[String], stderr: &[String], status: i32) -> Vec<String> {
    let mut lines = vec![format!("% {}", case.command)];
    lines.extend(case.stdin.iter().map(|line| {
        if line.is_empty() {
            "<".to_string()
        } else {
            format!("< {line}")
        }
    }));
    lines.extend(stdout.iter().cloned());
    lines.extend(stderr.iter().map(|line| format!("2> {line}")));
    lines.push(format!("=> {status}"));
    lines
}

/// Checks (or with `update`, rewrites) the transcript blocks of one file:
/// the blocks that open with `opener` and close with a bare fence.
fn check_file(file: &Path, opener: &str, update: bool, failures: &mut Vec<String>) {
    let text = fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if lines[index] != opener {
            out.push(lines[index].to_string());
            index += 1;
            continue;
        }
        let end = index
            + 1
            + lines[index + 1..]
                .iter()
                .position(|line| *line == "```")
                .expect("unclosed block");
        let case = parse_block(&lines[index + 1..end]);
        let (stdout, stderr, status) = run(&case);
        let actual = render(&case, &stdout, &stderr, status);
        let expected: Vec<String> = lines[index + 1..end]
            .iter()
            .map(|line| line.to_string())
            .collect();
        if actual != expected && !update {
            failures.push(format!(
                "{}: `{}`\n--- expected\n{}\n--- actual\n{}",
                file.display(),
                case.command,
                expected.join("\n"),
                actual.join("\n")
            ));
        }
        out.push(opener.to_string());
        out.extend(actual);
        out.push("```".to_string());
        index = end + 1;
    }
    if update {
        fs::write(file, out.join("\n") + "\n").unwrap();
    }
}

#[test]
fn transcripts() {
    let update = std::env::var_os("UPDATE_TRANSCRIPTS").is_some();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cmd");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    let mut failures = Vec::new();
    for file in files
        .iter()
        .filter(|file| file.extension().is_some_and(|ext| ext == "md"))
    {
        check_file(file, "```", update, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The README, in one test since update mode rewrites the file: its
/// ```` ```console ```` blocks are transcripts (the output a newcomer reads is
/// the output they get), and its format table is what
/// `toolbridge formats --markdown` prints.
#[test]
fn readme() {
    let update = std::env::var_os("UPDATE_TRANSCRIPTS").is_some();
    let readme_path = workspace_root().join("README.md");
    let mut failures = Vec::new();
    check_file(&readme_path, "```console", update, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));

    let readme = fs::read_to_string(&readme_path).unwrap();
    let (begin, end) = ("<!-- FORMATS:BEGIN -->\n", "<!-- FORMATS:END -->");
    let start = readme.find(begin).expect("README has a FORMATS:BEGIN marker") + begin.len();
    let stop = readme.find(end).expect("README has a FORMATS:END marker");
    let table = run(&parse_block(&["% toolbridge formats --markdown"])).0;
    let table: String = table.iter().map(|line| format!("{line}\n")).collect();
    if update {
        fs::write(
            &readme_path,
            format!("{}{table}{}", &readme[..start], &readme[stop..]),
        )
        .unwrap();
        return;
    }
    assert_eq!(
        readme[start..stop],
        table,
        "README format table is stale: run with UPDATE_TRANSCRIPTS=1"
    );
}
