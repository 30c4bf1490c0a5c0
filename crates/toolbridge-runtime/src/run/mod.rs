//! Running a tool file's `run`: an HTTP endpoint, a command, a prompt
//! template or a context update.
//!
//! [`run`] takes arguments the [`Toolbox`](toolbridge::Toolbox)
//! already accepted (validated, defaults and static parameters applied) and
//! never panics or waits past its timeouts: every failure is an error
//! [`Output`] the model can read.

mod command;
mod context;
mod endpoint;
mod prompt;

pub use context::SESSION_META_KEY;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use toolbridge::tool::Run;
use toolbridge::{Note, NoteKind, Pointer, Tool};

use crate::output::Output;
use crate::session::Session;

/// Bounds on what a run may take and return.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct RunLimits {
    /// Timeout of an endpoint call without its own `timeout` (default 20 s,
    /// Syllable's default).
    pub endpoint_timeout: Duration,
    /// Timeout of a command without its own `timeout` (default 30 s).
    pub command_timeout: Duration,
    /// Largest response body an endpoint may send, and largest prompt a
    /// template may render (default 4 MiB); a larger one is an error result.
    pub max_response_bytes: usize,
    /// Largest stdout a command may write (default 4 MiB); more is an error
    /// result.
    pub max_stdout_bytes: usize,
    /// Most stderr kept from a command (default 64 KiB); the rest is dropped
    /// and the result says so.
    pub max_stderr_bytes: usize,
    /// Most redirects an endpoint call follows (default 10).
    pub max_redirects: usize,
    /// When set, the only hosts an endpoint call may reach, redirects
    /// included (`api.example.com`, or `127.0.0.1:8080` to name a port).
    pub allowed_hosts: Option<Vec<String>>,
    /// Most variables a session holds (default 256); a `context` call that
    /// would set more is an error result and sets none.
    pub max_session_variables: usize,
    /// Most bytes a session's variables take, names and JSON values
    /// (default 1 MiB); as for [`max_session_variables`](RunLimits::max_session_variables).
    pub max_session_bytes: usize,
}

impl Default for RunLimits {
    fn default() -> RunLimits {
        RunLimits {
            endpoint_timeout: Duration::from_secs(20),
            command_timeout: Duration::from_secs(30),
            max_response_bytes: 4 * 1024 * 1024,
            max_stdout_bytes: 4 * 1024 * 1024,
            max_stderr_bytes: 64 * 1024,
            max_redirects: 10,
            allowed_hosts: None,
            max_session_variables: 256,
            max_session_bytes: 1024 * 1024,
        }
    }
}

impl RunLimits {
    /// Sets [`endpoint_timeout`](RunLimits::endpoint_timeout).
    pub fn with_endpoint_timeout(mut self, timeout: Duration) -> RunLimits {
        self.endpoint_timeout = timeout;
        self
    }

    /// Sets [`command_timeout`](RunLimits::command_timeout).
    pub fn with_command_timeout(mut self, timeout: Duration) -> RunLimits {
        self.command_timeout = timeout;
        self
    }

    /// Sets [`max_response_bytes`](RunLimits::max_response_bytes).
    pub fn with_max_response_bytes(mut self, bytes: usize) -> RunLimits {
        self.max_response_bytes = bytes;
        self
    }

    /// Sets [`max_stdout_bytes`](RunLimits::max_stdout_bytes).
    pub fn with_max_stdout_bytes(mut self, bytes: usize) -> RunLimits {
        self.max_stdout_bytes = bytes;
        self
    }

    /// Sets [`max_stderr_bytes`](RunLimits::max_stderr_bytes).
    pub fn with_max_stderr_bytes(mut self, bytes: usize) -> RunLimits {
        self.max_stderr_bytes = bytes;
        self
    }

    /// Sets [`max_redirects`](RunLimits::max_redirects).
    pub fn with_max_redirects(mut self, redirects: usize) -> RunLimits {
        self.max_redirects = redirects;
        self
    }

    /// Sets [`max_session_variables`](RunLimits::max_session_variables).
    pub fn with_max_session_variables(mut self, variables: usize) -> RunLimits {
        self.max_session_variables = variables;
        self
    }

    /// Sets [`max_session_bytes`](RunLimits::max_session_bytes).
    pub fn with_max_session_bytes(mut self, bytes: usize) -> RunLimits {
        self.max_session_bytes = bytes;
        self
    }

    /// Sets [`allowed_hosts`](RunLimits::allowed_hosts).
    pub fn with_allowed_hosts<I, S>(mut self, hosts: I) -> RunLimits
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }
}

/// What a run needs besides the tool and its arguments.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RunContext {
    /// The folder of the tool file: a relative command `program` or
    /// `workingDirectory` resolves against it (else against the current
    /// directory).
    pub base_dir: Option<PathBuf>,
    /// The session's variables, set by `context` tools.
    pub session: Arc<Session>,
    /// The HTTP client of endpoint calls. Build it with redirects off
    /// ([`RunContext::http_client`]): endpoint calls follow redirects
    /// themselves, checking each against
    /// [`allowed_hosts`](RunLimits::allowed_hosts).
    pub http: reqwest::Client,
    /// Timeouts and size caps.
    pub limits: RunLimits,
}

impl Default for RunContext {
    fn default() -> RunContext {
        RunContext::new()
    }
}

impl RunContext {
    /// A context with no base folder, a new session, a new HTTP client and
    /// the default limits.
    pub fn new() -> RunContext {
        RunContext {
            base_dir: None,
            session: Arc::new(Session::new()),
            http: RunContext::http_client(),
            limits: RunLimits::default(),
        }
    }

    /// The HTTP client [`new`](RunContext::new) uses: rustls on ring (installed
    /// as the process's crypto provider unless one already is), redirects off.
    pub fn http_client() -> reqwest::Client {
        // Err means a provider is already installed, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("toolbridge/", env!("CARGO_PKG_VERSION")))
            .build()
            .unwrap_or_else(|_| reqwest::Client::new())
    }

    /// Sets [`base_dir`](RunContext::base_dir).
    pub fn with_base_dir(mut self, dir: impl Into<PathBuf>) -> RunContext {
        self.base_dir = Some(dir.into());
        self
    }

    /// Sets [`session`](RunContext::session).
    pub fn with_session(mut self, session: Arc<Session>) -> RunContext {
        self.session = session;
        self
    }

    /// Sets [`http`](RunContext::http).
    pub fn with_http(mut self, http: reqwest::Client) -> RunContext {
        self.http = http;
        self
    }

    /// Sets [`limits`](RunContext::limits).
    pub fn with_limits(mut self, limits: RunLimits) -> RunContext {
        self.limits = limits;
        self
    }
}

/// Runs `tool`'s `run` with `arguments` (already accepted by the Toolbox).
///
/// A tool without `run`, or with `run.kind = action`, is implemented by the
/// host program: the output is an error saying so.
pub async fn run(tool: &Tool, arguments: Map<String, Value>, context: &RunContext) -> Output {
    match &tool.run {
        None | Some(Run::Action(_)) => Output::error(format!(
            "tool {:?} is an action: the host program implements it, and none is registered",
            tool.name
        )),
        Some(Run::Endpoint(endpoint)) => endpoint::run(tool, endpoint, arguments, context).await,
        Some(Run::Command(command)) => command::run(tool, command, arguments, context).await,
        Some(Run::Prompt(prompt)) => prompt::run(tool, prompt, &arguments, context),
        Some(Run::Context(run)) => context::run(tool, run, arguments, context),
        Some(other) => Output::error(format!("run kind {:?} is not supported", other.kind())),
    }
}

/// The `_meta` key holding the notes of a run: what it had to change or
/// could not do, each naming its place (a [`Note`]'s JSON form).
pub const NOTES_META_KEY: &str = "dev.toolbridge/notes";

/// Adds `notes` to the output's `_meta` (nothing when there are none).
fn with_notes(output: Output, notes: Vec<Note>) -> Output {
    if notes.is_empty() {
        return output;
    }
    let notes = serde_json::to_value(notes).unwrap_or_default();
    let mut output = output;
    let meta = output.meta.get_or_insert_with(Map::new);
    match (meta.get_mut(NOTES_META_KEY), notes) {
        (Some(Value::Array(kept)), Value::Array(new)) => kept.extend(new),
        (_, notes) => {
            meta.insert(NOTES_META_KEY.into(), notes);
        }
    }
    output
}

/// Parses the result text as JSON when the tool declares an output schema,
/// for `structuredContent`; the text stays the result either way, and text
/// that is not JSON is noted.
fn with_structured(tool: &Tool, output: Output) -> Output {
    if tool.output_schema.is_none() || output.is_error {
        return output;
    }
    let parsed = output.text.as_deref().map(serde_json::from_str::<Value>);
    match parsed {
        Some(Ok(value)) => output.with_structured(value),
        Some(Err(error)) => with_notes(
            output,
            vec![Note::new(
                NoteKind::Dropped {
                    keyword: "structuredContent".into(),
                },
                Pointer::root().key("outputSchema"),
                format!(
                    "the tool declares an outputSchema but its output is not JSON ({error}); \
                     returned as text only"
                ),
            )],
        ),
        None => output,
    }
}
