//! The registry: tools from Rust handlers and from tool files side by side,
//! before a [`Dispatcher`](crate::Dispatcher) checks and runs calls to them.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolbridge::{Converted, ErrorKind, Note, ReadOptions, Tool};

use crate::handler::{Handler, RustTool};

/// Tools and what runs each: a Rust [`Handler`], or the tool's own `run`
/// (endpoint, command, prompt, context — [`run::run`](crate::run::run)).
///
/// Names are unique: adding a second tool of a name is an error and leaves
/// the first in place.
///
/// ```
/// use toolbridge_runtime::{Handler, Output, Registry, RustTool};
/// let mut registry = Registry::new();
/// let ping = toolbridge::Tool::new("ping", serde_json::json!({"type": "object"}));
/// registry.add(RustTool::new(ping, Handler::from_sync(|_| Output::text("pong"))))?;
/// registry.add_text(r#"{"name": "hello", "inputSchema": {"type": "object"},
///     "run": {"kind": "prompt", "template": "Say hello."}}"#, None, &Default::default())?;
/// assert_eq!(registry.tools().map(|tool| tool.name.as_str()).collect::<Vec<_>>(), ["ping", "hello"]);
/// # Ok::<(), toolbridge_runtime::RegistryError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Registry {
    entries: Vec<Entry>,
}

/// One tool and what runs it.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub tool: Arc<Tool>,
    pub implementation: Implementation,
}

/// What runs a tool.
#[derive(Clone, Debug)]
pub(crate) enum Implementation {
    /// Rust code.
    Rust(Handler),
    /// The tool's `run`, with the folder of the file it came from.
    Run { base_dir: Option<PathBuf> },
}

impl Registry {
    /// No tools.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a tool implemented in Rust (`my_function::handler()` from
    /// `#[tool]`, or built by hand).
    ///
    /// # Errors
    ///
    /// [`RegistryError::Tool`] (kind `InvalidTool`) when a tool of that name is already here.
    pub fn add(&mut self, tool: RustTool) -> Result<(), RegistryError> {
        self.push(tool.tool, Implementation::Rust(tool.handler))
    }

    /// Adds a tool that runs by its own `run` (a tool without one, or with
    /// `run.kind = action`, answers each call with an error saying the host
    /// implements it, until a handler is [bound](Registry::bind) to it);
    /// `base_dir` is the folder relative paths in `run` resolve against.
    ///
    /// # Errors
    ///
    /// As for [`Registry::add`].
    pub fn add_definition(&mut self, tool: Tool, base_dir: Option<PathBuf>) -> Result<(), RegistryError> {
        self.push(tool, Implementation::Run { base_dir })
    }

    /// Adds every tool in `text`, in any format toolbridge reads (detected,
    /// or [`ReadOptions::from`]), each running by its own `run`. Returns the
    /// read's notes. Nothing is added when any tool fails.
    ///
    /// # Errors
    ///
    /// The read's error, the first tool that could not be read, or a name
    /// that is already here.
    pub fn add_text(
        &mut self,
        text: &str,
        base_dir: Option<PathBuf>,
        options: &ReadOptions,
    ) -> Result<Vec<Note>, RegistryError> {
        let Converted { value: tools, notes } = toolbridge::read(text, options)?.into_converted()?;
        for (index, tool) in tools.iter().enumerate() {
            if self.contains(&tool.name) || tools[..index].iter().any(|earlier| earlier.name == tool.name) {
                return Err(duplicate(&tool.name));
            }
        }
        for tool in tools {
            self.push(
                tool,
                Implementation::Run {
                    base_dir: base_dir.clone(),
                },
            )?;
        }
        Ok(notes)
    }

    /// Adds every tool of the tool file at `path` (see
    /// [`add_text`](Registry::add_text)); relative paths in their `run`
    /// resolve against the file's folder. The file is refused past the
    /// read limit ([`Limits::max_bytes`](toolbridge::Limits::max_bytes)), reading no more than that.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Io`] when the file cannot be read; else as for
    /// [`add_text`](Registry::add_text).
    pub fn add_file(
        &mut self,
        path: impl AsRef<Path>,
        options: &ReadOptions,
    ) -> Result<Vec<Note>, RegistryError> {
        let path = path.as_ref();
        let io = |source: std::io::Error| RegistryError::Io {
            path: path.to_path_buf(),
            source,
        };
        let max = options.limits.max_bytes;
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|file| file.take(max as u64 + 1).read_to_end(&mut bytes))
            .map_err(io)?;
        if bytes.len() > max {
            return Err(RegistryError::Tool(
                toolbridge::Error::new(
                    ErrorKind::LimitExceeded,
                    format!("the file is larger than {max} bytes"),
                )
                .with_origin(path.display().to_string()),
            ));
        }
        let text = String::from_utf8(bytes).map_err(|error| {
            io(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                error.utf8_error(),
            ))
        })?;
        let mut options = options.clone();
        if options.origin.is_none() {
            options = options.with_origin(path.display().to_string());
        }
        let base_dir = path.parent().map(|dir| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                dir.to_path_buf()
            }
        });
        self.add_text(&text, base_dir, &options)
    }

    /// Runs the tool `name` with `handler` instead of its `run`: how the
    /// host implements an `action` tool read from a file.
    ///
    /// # Errors
    ///
    /// [`RegistryError::Tool`] (kind `InvalidTool`) when no tool has that name.
    pub fn bind(&mut self, name: &str, handler: Handler) -> Result<(), RegistryError> {
        let entry = self
            .entries
            .iter_mut()
            .find(|entry| entry.tool.name == name)
            .ok_or_else(|| {
                RegistryError::Tool(
                    toolbridge::Error::new(ErrorKind::InvalidTool, format!("no tool is named {name:?}"))
                        .with_tool(name),
                )
            })?;
        entry.implementation = Implementation::Rust(handler);
        Ok(())
    }

    /// The tools, in the order they were added.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.entries.iter().map(|entry| &*entry.tool)
    }

    /// True when a tool has this name.
    pub fn contains(&self, name: &str) -> bool {
        self.entries.iter().any(|entry| entry.tool.name == name)
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    fn push(&mut self, tool: Tool, implementation: Implementation) -> Result<(), RegistryError> {
        if self.contains(&tool.name) {
            return Err(duplicate(&tool.name));
        }
        self.entries.push(Entry {
            tool: Arc::new(tool),
            implementation,
        });
        Ok(())
    }
}

fn duplicate(name: &str) -> RegistryError {
    RegistryError::Tool(
        toolbridge::Error::new(ErrorKind::InvalidTool, format!("two tools are named {name:?}"))
            .with_tool(name),
    )
}

/// Why a tool could not be added.
#[derive(Debug)]
#[non_exhaustive]
pub enum RegistryError {
    /// A tool file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A tool could not be read or added (a duplicate name, an input
    /// schema that does not compile, …).
    Tool(toolbridge::Error),
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegistryError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            RegistryError::Tool(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for RegistryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RegistryError::Io { source, .. } => Some(source),
            RegistryError::Tool(error) => Some(error),
        }
    }
}

impl From<toolbridge::Error> for RegistryError {
    fn from(error: toolbridge::Error) -> RegistryError {
        RegistryError::Tool(error)
    }
}
