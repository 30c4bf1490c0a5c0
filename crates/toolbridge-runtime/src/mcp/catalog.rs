//! The served folder: its tool files read recursively, each tool's MCP
//! listing, and the fingerprint that tells when the folder changed.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::Value;
use toolbridge::tool::Run;
use toolbridge::{Format, Level, Limits, Output, ReadOptions, Tool, Toolbox, WriteOptions, FORMATS};

use crate::dispatch::Dispatcher;
use crate::registry::{Registry, RegistryError};

/// Sub-folders deeper than this are not read (a guard against symlink
/// farms; symlinked folders are never followed).
const MAX_DEPTH: usize = 16;
/// At most this many files are looked at in the folder.
const MAX_FILES: usize = 10_000;
/// The `_meta` prefix the MCP writer stores toolbridge's own fields under,
/// so that a file round-trips; a server's listing leaves all of it out.
const OWN_META_PREFIX: &str = "dev.toolbridge/";

/// How serious a [`Problem`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Something was left out on purpose (a non-tool file, an `action` tool).
    Warning,
    /// Something that should be served is not (a file that does not read, a
    /// duplicate name, a schema that does not compile).
    Error,
}

/// Something found while reading the served folder, for the operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Warning or error.
    pub severity: Severity,
    /// The file concerned.
    pub file: PathBuf,
    /// What happened, one sentence.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{level}: {}: {}", self.file.display(), self.message)
    }
}

/// One served tool.
#[derive(Debug)]
pub(crate) struct Served {
    /// The canonical tool, as its file defines it.
    pub tool: Tool,
    /// The folder of the tool's file (relative programs resolve against it).
    pub base_dir: PathBuf,
    /// What `tools/list` shows: no trace of how the tool runs.
    pub listed: rmcp::model::Tool,
    /// The MCP writer wrapped a non-object output schema as
    /// `{"result": …}`, so structured results are wrapped the same way.
    pub wraps_output: bool,
}

/// The tools of a folder, by name.
#[derive(Debug)]
pub(crate) struct Catalog {
    pub tools: BTreeMap<String, Served>,
    /// Checks and runs calls to the served tools.
    pub dispatcher: Dispatcher,
    pub problems: Vec<Problem>,
}

/// The state of a folder's files: each path with its modification time
/// and size, in path order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Fingerprint(Vec<(PathBuf, Option<SystemTime>, u64)>);

impl Fingerprint {
    /// The folder's files as they are now.
    pub fn of(dir: &Path) -> Fingerprint {
        let mut files = Vec::new();
        walk(dir, 0, &mut files, &mut Vec::new());
        Fingerprint(
            files
                .into_iter()
                .map(|path| {
                    let meta = std::fs::metadata(&path).ok();
                    let modified = meta.as_ref().and_then(|meta| meta.modified().ok());
                    let size = meta.map_or(0, |meta| meta.len());
                    (path, modified, size)
                })
                .collect(),
        )
    }
}

impl Catalog {
    /// Reads every tool file under `dir`, handing the served tools to
    /// `dispatcher` (a new one, or a reload of the last one). Never fails:
    /// what cannot be served is a [`Problem`]; a folder that cannot be
    /// listed gives an empty catalog with one.
    pub fn load(
        dir: &Path,
        limits: &Limits,
        dispatcher: impl Fn(Registry) -> Result<Dispatcher, RegistryError>,
    ) -> Catalog {
        let mut problems = Vec::new();
        let mut files = Vec::new();
        let mut walk_problems = Vec::new();
        walk(dir, 0, &mut files, &mut walk_problems);
        problems.extend(walk_problems);
        let mut tools: BTreeMap<String, Served> = BTreeMap::new();
        let mut origins: BTreeMap<String, PathBuf> = BTreeMap::new();
        let mut others = Vec::new();
        for file in files {
            if !is_tool_file(&file) {
                others.push(file);
                continue;
            }
            let base_dir = file.parent().map_or_else(PathBuf::new, Path::to_path_buf);
            for tool in read_file(&file, limits, &mut problems) {
                if let Some(first) = origins.get(&tool.name) {
                    problems.push(Problem {
                        severity: Severity::Error,
                        file: file.clone(),
                        message: format!(
                            "not serving `{}`: {} already serves a tool of that name",
                            tool.name,
                            first.display()
                        ),
                    });
                    continue;
                }
                if matches!(tool.run, None | Some(Run::Action(_))) {
                    problems.push(Problem {
                        severity: Severity::Warning,
                        file: file.clone(),
                        message: format!(
                            "`{}` is not listed: its run kind is `action`, which the host program implements",
                            tool.name
                        ),
                    });
                    continue;
                }
                if let Err(err) = Toolbox::new([tool.clone()]) {
                    problems.push(Problem {
                        severity: Severity::Error,
                        file: file.clone(),
                        message: format!("not serving `{}`: {err}", tool.name),
                    });
                    continue;
                }
                let Some((listed, wraps_output)) = listing(&tool, &file, &mut problems) else {
                    continue;
                };
                origins.insert(tool.name.clone(), file.clone());
                tools.insert(
                    tool.name.clone(),
                    Served {
                        tool,
                        base_dir: base_dir.clone(),
                        listed,
                        wraps_output,
                    },
                );
            }
        }
        let used = referenced_files(&tools);
        for file in others {
            let canonical = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
            if !used.contains(&canonical) {
                problems.push(Problem {
                    severity: Severity::Warning,
                    file,
                    message: "skipped: not a tool file (*.json, *.el, *.R, …)".into(),
                });
            }
        }
        let mut registry = Registry::new();
        for served in tools.values() {
            // Cannot fail: the names are the map's keys.
            let _ = registry.add_definition(served.tool.clone(), Some(served.base_dir.clone()));
        }
        let dispatcher = match dispatcher(registry) {
            Ok(dispatcher) => dispatcher,
            Err(err) => {
                // Each tool compiled on its own, so this is not expected;
                // serve nothing rather than fail.
                problems.push(Problem {
                    severity: Severity::Error,
                    file: dir.to_path_buf(),
                    message: format!("not serving any tool: {err}"),
                });
                tools.clear();
                dispatcher(Registry::new()).expect("no tools compile")
            }
        };
        Catalog {
            tools,
            dispatcher,
            problems,
        }
    }
}

/// The tools one file defines; what cannot be read becomes a problem.
fn read_file(file: &Path, limits: &Limits, problems: &mut Vec<Problem>) -> Vec<Tool> {
    let mut problem = |severity, message: String| {
        problems.push(Problem {
            severity,
            file: file.to_path_buf(),
            message,
        })
    };
    let size = std::fs::metadata(file).map_or(0, |meta| meta.len());
    if size > limits.max_bytes as u64 {
        problem(
            Severity::Error,
            format!(
                "not served: the file is {size} bytes; the limit is {}",
                limits.max_bytes
            ),
        );
        return Vec::new();
    }
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(err) => {
            problem(Severity::Error, format!("not served: cannot read it: {err}"));
            return Vec::new();
        }
    };
    let options = ReadOptions::default()
        .with_limits(limits.clone())
        .with_origin(file.display().to_string());
    let read = match toolbridge::read(&text, &options) {
        Ok(read) => read,
        Err(err) => {
            problem(Severity::Error, format!("not served: {err}"));
            return Vec::new();
        }
    };
    for note in read.notes.iter().filter(|note| note.kind.level() == Level::Loss) {
        problem(Severity::Warning, note.to_string());
    }
    let mut tools = Vec::new();
    for tool in read.tools {
        match tool {
            Ok(tool) => {
                for note in tool.notes.iter().filter(|note| note.kind.level() == Level::Loss) {
                    problem(Severity::Warning, format!("{}: {note}", tool.value.name));
                }
                tools.push(tool.value);
            }
            Err(err) => problem(Severity::Error, format!("a tool is not served: {err}")),
        }
    }
    tools
}

/// The tool as `tools/list` shows it: the MCP writer's entry without the
/// `_meta["dev.toolbridge/…"]` keys it keeps for files (the run, defaults,
/// static parameters: how the tool runs is nobody's business but the
/// server's). Also says whether the output schema was wrapped.
fn listing(tool: &Tool, file: &Path, problems: &mut Vec<Problem>) -> Option<(rmcp::model::Tool, bool)> {
    let written = match toolbridge::write_tool(tool, Format::Mcp, &WriteOptions::default()) {
        Ok(written) => written,
        Err(err) => {
            problems.push(Problem {
                severity: Severity::Error,
                file: file.to_path_buf(),
                message: format!("not serving `{}`: {err}", tool.name),
            });
            return None;
        }
    };
    let Output::Json(Value::Object(mut entry)) = written.value else {
        unreachable!("the MCP writer writes JSON objects");
    };
    if let Some(Value::Object(meta)) = entry.get_mut("_meta") {
        meta.retain(|key, _| !key.starts_with(OWN_META_PREFIX));
        if meta.is_empty() {
            entry.shift_remove("_meta");
        }
    }
    let wraps_output = match (&tool.output_schema, entry.get("outputSchema")) {
        (Some(original), Some(listed)) => original != listed && !is_object_schema(original),
        _ => false,
    };
    match serde_json::from_value::<rmcp::model::Tool>(Value::Object(entry)) {
        Ok(listed) => Some((listed, wraps_output)),
        Err(err) => {
            problems.push(Problem {
                severity: Severity::Error,
                file: file.to_path_buf(),
                message: format!("not serving `{}`: not an MCP tool: {err}", tool.name),
            });
            None
        }
    }
}

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// Files under the folder, in path order: hidden entries and symlinked
/// folders are left out.
fn walk(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, problems: &mut Vec<Problem>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) => {
            problems.push(Problem {
                severity: Severity::Error,
                file: dir.to_path_buf(),
                message: format!("cannot list the folder: {err}"),
            });
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            !path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with('.'))
        })
        .collect();
    paths.sort();
    for path in paths {
        if files.len() >= MAX_FILES {
            problems.push(Problem {
                severity: Severity::Error,
                file: dir.to_path_buf(),
                message: format!("more than {MAX_FILES} files; the rest are not read"),
            });
            return;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if depth + 1 < MAX_DEPTH {
                walk(&path, depth + 1, files, problems);
            } else {
                problems.push(Problem {
                    severity: Severity::Warning,
                    file: path,
                    message: format!("skipped: deeper than {MAX_DEPTH} folders"),
                });
            }
        } else if meta.is_file() || (meta.file_type().is_symlink() && path.is_file()) {
            files.push(path);
        }
    }
}

fn is_tool_file(path: &Path) -> bool {
    let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
    FORMATS
        .iter()
        .any(|info| info.extension.eq_ignore_ascii_case(extension))
}

/// The files command tools run or pass as arguments (scripts shipped next
/// to the tool files), which are not warned about as non-tool files.
fn referenced_files(tools: &BTreeMap<String, Served>) -> HashSet<PathBuf> {
    let mut used = HashSet::new();
    for served in tools.values() {
        let Some(Run::Command(command)) = &served.tool.run else {
            continue;
        };
        let dir = match &command.working_directory {
            Some(working) => served.base_dir.join(working),
            None => served.base_dir.clone(),
        };
        let names = std::iter::once(&command.program).chain(command.args.iter().flatten());
        for name in names {
            for candidate in [served.base_dir.join(name), dir.join(name)] {
                if let Ok(path) = std::fs::canonicalize(candidate) {
                    used.insert(path);
                }
            }
        }
    }
    used
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder holding `files`: tests run in parallel threads of one
    /// process, so each folder gets its own number.
    fn folder(files: &[(&str, &str)]) -> PathBuf {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolbridge-catalog-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const CONTEXT: &str = r#"{"name": "set_language", "inputSchema": {"type": "object",
        "properties": {"language": {"type": "string"}}, "required": ["language"]},
        "run": {"kind": "context"}}"#;

    #[test]
    fn lists_by_name_without_the_run_and_reports_what_it_leaves_out() {
        let dir = folder(&[
            (
                "b/zeta.json",
                r#"{"name": "zeta", "inputSchema": {"type": "object"},
                "run": {"kind": "command", "program": "./zeta.sh"},
                "_meta": {"com.example/x": 1}}"#,
            ),
            ("b/zeta.sh", "#!/bin/sh\necho hi\n"),
            ("alpha.json", CONTEXT),
            (
                "dup.json",
                r#"{"name": "set_language", "inputSchema": {"type": "object"}, "run": {"kind": "context"}}"#,
            ),
            (
                "host.json",
                r#"{"name": "host_only", "inputSchema": {"type": "object"}}"#,
            ),
            ("notes.txt", "hello"),
            ("broken.json", "{"),
        ]);
        let catalog = Catalog::load(&dir, &Limits::default(), Dispatcher::new);
        let names: Vec<&str> = catalog.tools.keys().map(String::as_str).collect();
        assert_eq!(names, ["set_language", "zeta"]);
        let zeta = serde_json::to_value(&catalog.tools["zeta"].listed).unwrap();
        assert_eq!(
            zeta,
            serde_json::json!({"name": "zeta", "inputSchema": {"type": "object"},
                "_meta": {"com.example/x": 1}})
        );
        let problems: Vec<String> = catalog
            .problems
            .iter()
            .map(|problem| problem.to_string().replace(&dir.display().to_string(), "DIR"))
            .collect();
        assert_eq!(problems.len(), 4, "{problems:#?}");
        assert!(
            problems[0].starts_with("error: DIR/broken.json: not served: "),
            "{problems:#?}"
        );
        assert_eq!(
            problems[1],
            "error: DIR/dup.json: not serving `set_language`: DIR/alpha.json already serves a tool of that name"
        );
        assert_eq!(
            problems[2],
            "warning: DIR/host.json: `host_only` is not listed: its run kind is `action`, which the host program implements"
        );
        assert_eq!(
            problems[3],
            "warning: DIR/notes.txt: skipped: not a tool file (*.json, *.el, *.R, …)"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_parameter_with_a_default_is_listed_as_optional() {
        let dir = folder(&[(
            "books/book.json",
            r#"{"name": "book", "inputSchema": {"type": "object",
                "properties": {"room": {"type": "string"}, "minutes": {"type": "integer"}},
                "required": ["room", "minutes"]},
            "defaults": {"minutes": 30}, "run": {"kind": "context"}}"#,
        )]);
        let catalog = Catalog::load(&dir, &Limits::default(), Dispatcher::new);
        let listed = serde_json::to_value(&catalog.tools["book"].listed).unwrap();
        assert_eq!(
            listed,
            serde_json::json!({"name": "book", "inputSchema": {"type": "object",
                "properties": {"room": {"type": "string"}, "minutes": {"type": "integer"}},
                "required": ["room"]}})
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_fingerprint_changes_with_a_file() {
        let dir = folder(&[("one/alpha.json", CONTEXT)]);
        let before = Fingerprint::of(&dir);
        assert_eq!(before, Fingerprint::of(&dir));
        std::fs::write(dir.join("one/beta.json"), CONTEXT.replace("set_language", "beta")).unwrap();
        assert_ne!(before, Fingerprint::of(&dir));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
