//! `toolbridge serve` and `toolbridge import` against MCP clients and servers
//! no one here wrote: the official Python SDK (`mcp`, pinned in
//! `crates/toolbridge/tests/sdk/requirements.txt`), its stdio and
//! streamable-HTTP clients in both protocol modes (2025-11-25 with
//! `initialize`, 2026-07-28 stateless), and a server written with its
//! FastMCP (`MCPServer`).
//!
//! The interpreter is `$TOOLBRIDGE_SDK_PYTHON`, else `<workspace>/.venv/bin/python`
//! (`scripts/test` makes it); a missing one fails the test. Every child
//! process is killed when its test ends, and every wait is bounded.

use std::ffi::OsStr;
use std::io::{BufRead, BufReader, Read as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const TOOLBRIDGE: &str = env!("CARGO_BIN_EXE_toolbridge");
/// No check takes near this long; a hang fails instead of blocking the suite.
const DEADLINE: Duration = Duration::from_secs(120);

fn mcp_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../toolbridge-runtime/tests/mcp")
}

fn python() -> PathBuf {
    let python = std::env::var_os("TOOLBRIDGE_SDK_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/python"));
    let probe = Command::new(&python).args(["-c", "import mcp"]).output();
    match probe {
        Ok(output) if output.status.success() => python,
        _ => panic!(
            "the MCP tests need Python with the `mcp` SDK at {} (scripts/test installs it into .venv \
             and sets TOOLBRIDGE_SDK_PYTHON)",
            python.display()
        ),
    }
}

/// A child process killed when dropped.
struct Guard(Option<Child>);

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(child) = self.0.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Waits for `child` at most [`DEADLINE`], killing it when it takes longer.
fn finish(child: Child, what: &str) -> Output {
    // Pipes are drained by threads so that a chatty child cannot block on a full pipe.
    let mut guard = Guard(Some(child));
    let child = guard.0.as_mut().unwrap();
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|pipe| Box::new(pipe) as Box<dyn std::io::Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|pipe| Box::new(pipe) as Box<dyn std::io::Read + Send>),
    );
    let start = Instant::now();
    let status = loop {
        match child.try_wait().expect("the child can be waited for") {
            Some(status) => break status,
            None if start.elapsed() > DEADLINE => panic!("{what} did not finish within {DEADLINE:?}"),
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    guard.0 = None;
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// A fresh copy of the served tool files (the reload check adds one).
fn tool_folder() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolbridge-mcp-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&mcp_dir().join("tools"), &dir);
    dir
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `toolbridge serve DIR --http 127.0.0.1:0 EXTRA…`, and its URL once it listens.
fn serve_http(dir: &Path, extra: &[&str]) -> (Guard, String) {
    let mut child = Command::new(TOOLBRIDGE)
        .arg("serve")
        .arg(dir)
        .args(["--http", "127.0.0.1:0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolbridge serve starts");
    let stderr = child.stderr.take().unwrap();
    let guard = Guard(Some(child));
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("toolbridge serve: listening on ") {
                let _ = sender.send(url.to_string());
            }
        }
    });
    let url = receiver
        .recv_timeout(Duration::from_secs(30))
        .expect("toolbridge serve says where it listens");
    (guard, url)
}

/// Runs the Python script `name` (in the MCP test folder) with `args`; its
/// stdout, asserting it succeeded.
fn run_script(name: &str, args: &[&OsStr]) -> String {
    let child = Command::new(python())
        .arg(mcp_dir().join(name))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python runs");
    let output = finish(child, name);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{name} {args:?} failed\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

fn run_client(server: &[&str], dir: &Path, mode: &str) {
    let mut args: Vec<&OsStr> = server.iter().map(OsStr::new).collect();
    args.extend([
        OsStr::new("--dir"),
        dir.as_os_str(),
        OsStr::new("--mode"),
        OsStr::new(mode),
    ]);
    let stdout = run_script("client.py", &args);
    let checks: Vec<&str> = stdout.lines().collect();
    let last = checks.last().copied();
    assert_eq!(last, Some("ok confirm accepted"), "{stdout}");
    assert!(checks.contains(&"ok list_changed"), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn stdio_client_initialize() {
    run_client(&["--stdio", TOOLBRIDGE], &tool_folder(), "legacy");
}

#[test]
fn stdio_client_stateless_2026() {
    run_client(&["--stdio", TOOLBRIDGE], &tool_folder(), "auto");
}

#[test]
fn http_client_initialize() {
    let dir = tool_folder();
    let (_server, url) = serve_http(&dir, &[]);
    run_client(&["--url", &url], &dir, "legacy");
}

#[test]
fn http_client_stateless_2026() {
    let dir = tool_folder();
    let (_server, url) = serve_http(&dir, &["--stateless"]);
    run_client(&["--url", &url], &dir, "auto");
}

/// Endpoint tools served over stdio, called by the Python SDK's client, reaching a
/// local HTTP server the script starts (`endpoint_client.py`).
fn run_endpoint_client(mode: &str) {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolbridge-mcp-endpoint-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let args = ["--toolbridge", TOOLBRIDGE, "--mode", mode, "--dir"].map(OsStr::new);
    let mut args = args.to_vec();
    args.push(dir.as_os_str());
    let stdout = run_script("endpoint_client.py", &args);
    assert_eq!(stdout.lines().last(), Some("ok body sent"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn endpoint_tools_through_mcp_initialize() {
    run_endpoint_client("legacy");
}

#[test]
fn endpoint_tools_through_mcp_stateless_2026() {
    run_endpoint_client("auto");
}

/// `toolbridge import ARGS…`, its stdout (asserting exit 0).
fn import(args: &[&str]) -> String {
    let child = Command::new(TOOLBRIDGE)
        .arg("import")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("toolbridge import starts");
    let output = finish(child, "toolbridge import");
    assert!(
        output.status.success(),
        "import failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Single-quoted for `--mcp` (its splitter keeps everything between single quotes).
fn quoted(path: &Path) -> String {
    format!("'{}'", path.display())
}

/// The served tools as `convert` writes them for OpenAI, in name order: what
/// an import of the server must give back.
fn converted_for_openai() -> String {
    let tools = mcp_dir().join("tools");
    let output = Command::new(TOOLBRIDGE)
        .arg("convert")
        .args(
            [
                "text/greet.json",
                "set_language.json",
                "wipe_notes.json",
                "text/word_count.json",
            ]
            .map(|file| tools.join(file)),
        )
        .args(["--to", "openai", "--notes", "none"])
        .output()
        .unwrap();
    assert!(output.status.success());
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn import_reads_every_page_of_toolbridge_serve_over_stdio() {
    let dir = tool_folder();
    let command = format!(
        "{} serve {} --page-size 1 --no-reload",
        quoted(Path::new(TOOLBRIDGE)),
        quoted(&dir)
    );
    let imported = import(&["--mcp", &command, "--to", "openai", "--notes", "none"]);
    assert_eq!(imported, converted_for_openai());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn import_reads_toolbridge_serve_over_http() {
    let dir = tool_folder();
    let (_server, url) = serve_http(&dir, &["--page-size", "3"]);
    let imported = import(&["--mcp-url", &url, "--to", "openai", "--notes", "none"]);
    assert_eq!(imported, converted_for_openai());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn import_reads_a_fastmcp_server() {
    let command = format!(
        "{} {}",
        quoted(&python()),
        quoted(&mcp_dir().join("fastmcp_server.py"))
    );
    let imported = import(&["--mcp", &command, "--to", "gemini", "--notes", "none"]);
    let expected = std::fs::read_to_string(mcp_dir().join("fastmcp_gemini.json")).unwrap();
    assert_eq!(imported, expected);
}

#[test]
fn import_of_a_program_that_is_not_a_server_fails_within_its_timeout() {
    let child = Command::new(TOOLBRIDGE)
        .args(["import", "--mcp", "sleep 30", "--to", "openai", "--timeout", "2"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let output = finish(child, "toolbridge import");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr).trim_end(),
        "toolbridge: error: the server started as \"sleep 30\" did not list its tools within 2 s"
    );
}

#[test]
fn the_http_endpoint_is_mcp_only_and_bodies_are_bounded() {
    let dir = tool_folder();
    let (_server, url) = serve_http(&dir, &["--max-body", "1024"]);
    let script = r#"
import json, sys, urllib.request, urllib.error
url = sys.argv[1]
def post(target, body):
    request = urllib.request.Request(target, data=body, method="POST",
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    try:
        return urllib.request.urlopen(request, timeout=20).status
    except urllib.error.HTTPError as err:
        return err.code
print(post(url.replace("/mcp", "/other"), b"{}"), post(url, b"x" * 4096))
"#;
    let output = Command::new(python())
        .args(["-c", script, &url])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), "404 413");
    let _ = std::fs::remove_dir_all(dir);
}
