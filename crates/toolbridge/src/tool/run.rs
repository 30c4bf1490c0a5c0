//! How a tool executes, as data. Execution itself lives in the runtime crate.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a tool executes.
///
/// The JSON form is tagged by `kind`:
/// `{"kind": "endpoint", "url": "https://api.example.com/weather/{city}", "method": "get", …}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Run {
    /// Implemented by the host program (the default when `run` is absent).
    Action(ActionRun),
    /// An HTTP call (Syllable's `HttpEndpoint`, extended).
    Endpoint(EndpointRun),
    /// A program run with the arguments as JSON on stdin, never through a shell.
    Command(CommandRun),
    /// A prompt template with `{{variable}}` placeholders (SkyDeck).
    Prompt(PromptRun),
    /// Sets session variables from the arguments (Syllable `context`); the
    /// reply is the tool's [`fixed_result`](crate::Tool::fixed_result).
    Context(ContextRun),
}

impl Run {
    /// The `kind` tag: `action`, `endpoint`, `command`, `prompt` or `context`.
    pub fn kind(&self) -> &'static str {
        match self {
            Run::Action(_) => "action",
            Run::Endpoint(_) => "endpoint",
            Run::Command(_) => "command",
            Run::Prompt(_) => "prompt",
            Run::Context(_) => "context",
        }
    }
}

/// A tool implemented by the host program.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ActionRun {
    /// The handler's source code per language, kept verbatim so that a round
    /// trip reproduces it: `{"elisp": "#'my-fn", "r": "rnorm"}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handler: Option<IndexMap<String, String>>,
}

/// An HTTP call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EndpointRun {
    /// The URL; each `{name}` slot is filled from the argument `name`
    /// (percent-encoded), whatever the argument's location, and that
    /// argument goes nowhere else.
    pub url: String,
    /// The HTTP method.
    pub method: HttpMethod,
    /// Where the arguments go.
    pub argument_location: ArgumentLocation,
    /// Where some arguments go instead of
    /// [`argument_location`](EndpointRun::argument_location), by name: an
    /// `id` in the path and filters in the query of `GET /users/{id}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter_locations: Option<IndexMap<String, ArgumentLocation>>,
    /// Request headers; `${NAME}` in a value is replaced by the environment
    /// variable `NAME` when the call is made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<IndexMap<String, String>>,
    /// Timeout in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}

impl EndpointRun {
    /// An endpoint with no headers and no timeout.
    pub fn new(
        url: impl Into<String>,
        method: HttpMethod,
        argument_location: ArgumentLocation,
    ) -> EndpointRun {
        EndpointRun {
            url: url.into(),
            method,
            argument_location,
            parameter_locations: None,
            headers: None,
            timeout: None,
        }
    }
}

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HttpMethod {
    /// GET
    Get,
    /// POST
    Post,
    /// PUT
    Put,
    /// PATCH
    Patch,
    /// DELETE
    Delete,
}

/// Where an HTTP call puts the arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ArgumentLocation {
    /// A JSON body.
    Body,
    /// A form-encoded body.
    Form,
    /// `{name}` slots in the URL path.
    Path,
    /// The query string.
    Query,
}

/// A program run with the arguments as JSON on stdin.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CommandRun {
    /// The program (a path or a name looked up on `PATH`).
    pub program: String,
    /// Fixed command-line arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// Extra environment variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<IndexMap<String, String>>,
    /// The working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_directory: Option<String>,
    /// Timeout in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<f64>,
}

impl CommandRun {
    /// A command with only a program.
    pub fn new(program: impl Into<String>) -> CommandRun {
        CommandRun {
            program: program.into(),
            args: None,
            env: None,
            working_directory: None,
            timeout: None,
        }
    }
}

/// A prompt template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PromptRun {
    /// The template, with `{{variable}}` placeholders naming arguments.
    pub template: String,
}

impl PromptRun {
    /// A prompt run with `template`.
    pub fn new(template: impl Into<String>) -> PromptRun {
        PromptRun {
            template: template.into(),
        }
    }
}

/// A tool that sets session context from its arguments.
///
/// Without a `task`, each argument sets the session variable of the same name
/// (Syllable's original context tools: `language`, `say`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ContextRun {
    /// How the variables are computed: Syllable's context task (`steps`,
    /// `event`, `expression` or `import`, or a list of them), kept as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Value>,
}
