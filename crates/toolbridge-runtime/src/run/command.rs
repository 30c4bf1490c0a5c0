//! The `command` run kind: a program with fixed arguments, given the call's
//! arguments as JSON on stdin, never through a shell.

use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use toolbridge::tool::CommandRun;
use toolbridge::{Note, NoteKind, Pointer, Tool};

use super::{with_notes, with_structured, RunContext};
use crate::output::Output;

/// Runs a `command` tool.
///
/// - `program` with a `/` in it and not absolute resolves against the tool
///   file's folder ([`RunContext::base_dir`]); a bare name is looked up on
///   `PATH`; `workingDirectory` resolves against the folder too, and
///   defaults to it (to the current directory when the folder is unknown);
/// - the arguments are written to stdin as one JSON object, then stdin is
///   closed;
/// - the program must finish within its `timeout` (default
///   [`RunLimits::command_timeout`](super::RunLimits::command_timeout)), or
///   it is killed and the result is an error;
/// - on unix the program runs in a process group of its own, and the whole
///   group is killed when the call ends — at its timeout, on an error, or
///   when the program exits — so nothing it started outlives the call or
///   keeps its pipes open;
/// - stdout over [`max_stdout_bytes`](super::RunLimits::max_stdout_bytes)
///   kills the program (an error result); stderr past
///   [`max_stderr_bytes`](super::RunLimits::max_stderr_bytes) is read and
///   dropped, so the program never blocks on a full pipe;
/// - exit 0: stdout, one trailing newline trimmed, is the result, parsed
///   into `structuredContent` when the tool has an `outputSchema`; any other
///   exit is an error result carrying the trimmed stderr.
pub(super) async fn run(
    tool: &Tool,
    run: &CommandRun,
    arguments: Map<String, Value>,
    context: &RunContext,
) -> Output {
    let name = &tool.name;
    let timeout = match run.timeout {
        None => context.limits.command_timeout,
        Some(seconds) => match Duration::try_from_secs_f64(seconds) {
            Ok(timeout) if seconds > 0.0 => timeout,
            _ => {
                return Output::error(format!(
                    "tool {name:?}: the timeout {seconds} is not a positive number of seconds"
                ))
            }
        },
    };
    let base = context.base_dir.as_deref();
    let program = resolve_program(&run.program, base);
    let mut command = Command::new(&program);
    command
        .args(run.args.iter().flatten())
        .envs(run.env.iter().flatten())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let directory = match (&run.working_directory, base) {
        (Some(dir), base) => Some(resolve_against(Path::new(dir), base)),
        (None, base) => base.map(Path::to_path_buf),
    };
    if let Some(directory) = directory {
        if !directory.is_dir() {
            return Output::error(format!(
                "tool {name:?}: the working directory {} is not a directory",
                directory.display()
            ));
        }
        command.current_dir(directory);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            return Output::error(format!(
                "tool {name:?}: cannot start {}: {error}",
                program.display()
            ));
        }
    };
    let group = ProcessGroup::of(&child);
    let input = Value::Object(arguments).to_string();
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Output::error(format!("tool {name:?}: the program's pipes could not be opened"));
    };
    let limits = &context.limits;
    let work = async {
        let write = async move {
            // A program that exits without reading its input is not an error.
            let _ = stdin.write_all(input.as_bytes()).await;
            drop(stdin);
        };
        let waited = async {
            let status = child
                .wait()
                .await
                .map_err(|error| format!("waiting for the program failed: {error}"));
            // What the program left running would hold the pipes open.
            group.kill();
            status
        };
        let stderr = async {
            Ok::<_, String>(
                read_capped(stderr, limits.max_stderr_bytes, false)
                    .await
                    .unwrap_or_default(),
            )
        };
        let ((), stdout, stderr, status) = tokio::try_join!(
            async {
                write.await;
                Ok(())
            },
            read_capped(stdout, limits.max_stdout_bytes, true),
            stderr,
            waited
        )?;
        Ok::<_, String>((status, stdout, stderr))
    };
    let outcome = tokio::time::timeout(timeout, work).await;
    let (status, stdout, stderr) = match outcome {
        Ok(Ok(done)) => done,
        Ok(Err(message)) => {
            // The child is killed when dropped (kill_on_drop).
            return Output::error(format!("tool {name:?}: {message}"));
        }
        Err(_) => {
            return Output::error(format!(
                "tool {name:?}: the program did not finish within {} s and was killed",
                timeout.as_secs_f64()
            ))
        }
    };
    let mut notes = Vec::new();
    let stderr_text = text(&stderr.bytes, "stderr", &mut notes);
    if stderr.truncated {
        notes.push(Note::new(
            NoteKind::OverLimit {
                limit: format!("{} bytes", limits.max_stderr_bytes).into(),
            },
            Pointer::root().key("stderr"),
            format!("stderr was cut to its first {} bytes", limits.max_stderr_bytes),
        ));
    }
    if !status.success() {
        let stderr_text = stderr_text.trim();
        let message = if stderr_text.is_empty() {
            format!("the program {} (no stderr)", describe(status))
        } else {
            format!("the program {}: {stderr_text}", describe(status))
        };
        return with_notes(Output::error(message), notes);
    }
    let mut out = text(&stdout.bytes, "stdout", &mut notes);
    if out.ends_with('\n') {
        out.pop();
        if out.ends_with('\r') {
            out.pop();
        }
    }
    with_notes(with_structured(tool, Output::text(out)), notes)
}

/// The process group of a started program (unix; elsewhere nothing): killed
/// when asked and when dropped, so no path out of a run leaves it behind.
struct ProcessGroup(Option<u32>);

impl ProcessGroup {
    /// The group `child` leads (it was started with `process_group(0)`).
    fn of(child: &tokio::process::Child) -> ProcessGroup {
        ProcessGroup(if cfg!(unix) { child.id() } else { None })
    }

    /// Sends SIGKILL to every process of the group.
    fn kill(&self) {
        #[cfg(unix)]
        if let Some(id) = self.0.and_then(|id| i32::try_from(id).ok()) {
            // ESRCH (the group is gone) is the usual answer once all ended.
            let _ =
                nix::sys::signal::killpg(nix::unistd::Pid::from_raw(id), nix::sys::signal::Signal::SIGKILL);
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.kill();
    }
}

/// What was read from a pipe.
#[derive(Default)]
struct Captured {
    bytes: Vec<u8>,
    truncated: bool,
}

/// Reads a pipe to its end keeping at most `max` bytes; past `max`, `fail`
/// makes it an error (stdout), else the rest is read and dropped (stderr).
async fn read_capped(mut pipe: impl AsyncRead + Unpin, max: usize, fail: bool) -> Result<Captured, String> {
    let mut captured = Captured::default();
    let mut buffer = [0u8; 8192];
    loop {
        let read = pipe
            .read(&mut buffer)
            .await
            .map_err(|error| format!("reading the program's output failed: {error}"))?;
        if read == 0 {
            return Ok(captured);
        }
        let room = max.saturating_sub(captured.bytes.len());
        if read > room {
            if fail {
                return Err(format!("the program wrote more than {max} bytes to stdout"));
            }
            captured.truncated = true;
        }
        captured.bytes.extend_from_slice(&buffer[..read.min(room)]);
    }
}

/// Bytes as text; invalid UTF-8 is replaced, with a note.
fn text(bytes: &[u8], stream: &str, notes: &mut Vec<Note>) -> String {
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) => {
            notes.push(Note::new(
                NoteKind::Coerced {
                    from: "bytes".into(),
                    to: "text".into(),
                },
                Pointer::root().key(stream),
                format!("the program's {stream} is not UTF-8; invalid bytes were replaced by U+FFFD"),
            ));
            String::from_utf8_lossy(bytes).into_owned()
        }
    }
}

/// `exited with status 3`, `was killed by a signal`.
fn describe(status: ExitStatus) -> String {
    match status.code() {
        Some(code) => format!("exited with status {code}"),
        None => "was killed by a signal".to_string(),
    }
}

/// The program to start: a relative path with a separator resolves against
/// the tool file's folder; a bare name stays for the `PATH` lookup.
fn resolve_program(program: &str, base: Option<&Path>) -> PathBuf {
    let path = Path::new(program);
    if path.components().count() > 1 || program.starts_with('.') {
        resolve_against(path, base)
    } else {
        path.to_path_buf()
    }
}

fn resolve_against(path: &Path, base: Option<&Path>) -> PathBuf {
    match base {
        Some(base) if path.is_relative() => base.join(path),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_against_the_folder_unless_bare_or_absolute() {
        let base = Some(Path::new("/tools"));
        assert_eq!(resolve_program("python3", base), PathBuf::from("python3"));
        assert_eq!(
            resolve_program("./run.sh", base),
            PathBuf::from("/tools/./run.sh")
        );
        assert_eq!(
            resolve_program("scripts/run.sh", base),
            PathBuf::from("/tools/scripts/run.sh")
        );
        assert_eq!(resolve_program("/bin/echo", base), PathBuf::from("/bin/echo"));
        assert_eq!(
            resolve_program("scripts/run.sh", None),
            PathBuf::from("scripts/run.sh")
        );
    }
}
