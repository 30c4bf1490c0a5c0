//! The dispatcher: checks a model's calls against the registry's tools and
//! runs the accepted ones, concurrently up to a limit, each under a timeout,
//! after the confirmation hook where a tool asks for one.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;
use toolbridge::call::{CallOptions, ToolCall, ToolResult};
use toolbridge::tool::{Confirm, Run};
use toolbridge::{CheckOptions, Checked, Converted, Format, Note, NoteKind, Pointer, Tool, Toolbox, Written};

use crate::handler::{BoxFuture, Kind};
use crate::output::Output;
use crate::registry::{Implementation, Registry, RegistryError};
use crate::run::{self, RunContext};

/// The reason a rejection gives when the hook gives none: ellmer's
/// `tool_reject()` default (tidyverse/ellmer `R/tools-def.R`).
pub const DEFAULT_REJECT_REASON: &str = "The user has chosen to disallow the tool call.";

/// How long a run kind may take past its own timeout before the
/// dispatcher gives up on it.
const GRACE: Duration = Duration::from_secs(1);

/// How calls are run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct DispatchOptions {
    /// At most this many calls run at once, across every batch and every
    /// caller of this dispatcher (default 8).
    pub concurrency: usize,
    /// A call that has not answered after this long is given up, with an
    /// error result saying so (default 60 s); the time waiting for a slot
    /// (see [`concurrency`](DispatchOptions::concurrency)) counts. A tool
    /// file whose `run` declares a longer timeout gets that (plus a second).
    pub timeout: Duration,
    /// When the confirmation hook is asked (default [`ConfirmPolicy::Auto`]).
    pub confirm: ConfirmPolicy,
    /// How the Toolbox checks calls.
    pub check: CheckOptions,
}

impl Default for DispatchOptions {
    fn default() -> DispatchOptions {
        DispatchOptions {
            concurrency: 8,
            timeout: Duration::from_secs(60),
            confirm: ConfirmPolicy::Auto,
            check: CheckOptions::default(),
        }
    }
}

impl DispatchOptions {
    /// Sets [`concurrency`](DispatchOptions::concurrency) (at least 1).
    pub fn with_concurrency(mut self, concurrency: usize) -> DispatchOptions {
        self.concurrency = concurrency.max(1);
        self
    }

    /// Sets [`timeout`](DispatchOptions::timeout).
    pub fn with_timeout(mut self, timeout: Duration) -> DispatchOptions {
        self.timeout = timeout;
        self
    }

    /// Sets [`confirm`](DispatchOptions::confirm).
    pub fn with_confirm(mut self, confirm: ConfirmPolicy) -> DispatchOptions {
        self.confirm = confirm;
        self
    }

    /// Sets [`check`](DispatchOptions::check).
    pub fn with_check(mut self, check: CheckOptions) -> DispatchOptions {
        self.check = check;
        self
    }
}

/// Which calls go through the confirmation hook (gptel's
/// `gptel-confirm-tool-calls`: `auto`, `t`, `nil`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfirmPolicy {
    /// Calls of tools whose `confirm` is `true` or a predicate (a
    /// predicate is code for another language, so the call is asked about).
    Auto,
    /// Every call.
    Always,
    /// None.
    Never,
}

/// A call waiting for confirmation: what the hook is shown.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ConfirmRequest {
    /// The call as the model sent it.
    pub call: ToolCall,
    /// The tool it calls.
    pub tool: Arc<Tool>,
    /// The arguments the Toolbox accepted (validated, defaults set): what
    /// the tool would run with.
    pub arguments: Map<String, Value>,
}

/// What the confirmation hook decided.
#[derive(Clone, Debug, PartialEq)]
pub enum Decision {
    /// Run the call as it is.
    Run,
    /// Do not run it; the model reads `Tool call rejected. <reason>` as the
    /// call's error result (ellmer's `tool_reject(reason)`).
    Reject {
        /// Why, for the model.
        reason: String,
    },
    /// Run it with these arguments instead (gptel's `:confirm` edit); they
    /// are checked by the Toolbox again, and a rejection is the result.
    Edit(Map<String, Value>),
}

impl Decision {
    /// A rejection with ellmer's default reason.
    pub fn reject() -> Decision {
        Decision::reject_because(DEFAULT_REJECT_REASON)
    }

    /// A rejection with `reason`.
    pub fn reject_because(reason: impl Into<String>) -> Decision {
        Decision::Reject {
            reason: reason.into(),
        }
    }
}

type ConfirmHook = Arc<dyn Fn(ConfirmRequest) -> BoxFuture<Decision> + Send + Sync>;

/// Runs a model's calls to the tools of a [`Registry`].
///
/// Each call goes through the [`Toolbox`] (a rejection is the call's error
/// result, written for the model), then, for tools that ask for it, the
/// confirmation hook (run, reject with a reason, or edit the arguments),
/// then its handler or its `run` under the timeout. A handler that fails,
/// panics or times out gives an error result; nothing a call does stops
/// the others. Results come back in the order of the calls.
///
/// ```
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use toolbridge::call::ToolCall;
/// use toolbridge_runtime::{Dispatcher, Handler, Output, Registry, RustTool};
/// let mut registry = Registry::new();
/// let ping = toolbridge::Tool::new("ping", serde_json::json!({"type": "object"}));
/// registry.add(RustTool::new(ping, Handler::from_sync(|_| Output::text("pong"))))?;
/// let dispatcher = Dispatcher::new(registry)?;
/// let results = dispatcher.dispatch(&[ToolCall::new("call_1", "ping", serde_json::json!({})),
///                                     ToolCall::new("call_2", "pong", serde_json::json!({}))]).await;
/// assert_eq!(results[0].text.as_deref(), Some("pong"));
/// assert_eq!(results[1].text.as_deref(), Some("There is no tool named \"pong\" — did you mean `ping`? The tools are: `ping`."));
/// # Ok::<(), toolbridge_runtime::RegistryError>(())
/// # }).unwrap();
/// ```
pub struct Dispatcher {
    toolbox: Toolbox,
    implementations: HashMap<String, Implementation>,
    tools: HashMap<String, Arc<Tool>>,
    context: RunContext,
    options: DispatchOptions,
    permits: Arc<Semaphore>,
    hook: Option<ConfirmHook>,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("toolbox", &self.toolbox)
            .field("options", &self.options)
            .field("hook", &self.hook.is_some())
            .finish_non_exhaustive()
    }
}

/// A call ready to run.
struct Job {
    tool: Arc<Tool>,
    implementation: Implementation,
    arguments: Map<String, Value>,
    timeout: Duration,
}

/// A call after the check and the hook: answered already, or ready to run.
enum Prepared {
    Answered(ToolResult),
    Ready(Job),
}

/// What [`Dispatcher::reply`] made of a provider's response.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Reply {
    /// The calls read from the response, in order.
    pub calls: Vec<ToolCall>,
    /// Their results, in the same order.
    pub results: Vec<ToolResult>,
    /// The results as the provider takes them back on the next turn
    /// (`None` when the response made no calls).
    pub message: Option<Value>,
    /// What was normalised along the way: reading the response, checking
    /// each call (pointing into that call's arguments), writing the results.
    pub notes: Vec<Note>,
}

impl Dispatcher {
    /// A dispatcher over the registry's tools, with the default options and
    /// a new [`RunContext`].
    ///
    /// # Errors
    ///
    /// A tool whose input schema does not compile.
    pub fn new(registry: Registry) -> Result<Dispatcher, RegistryError> {
        Dispatcher::with_options(registry, DispatchOptions::default())
    }

    /// A dispatcher over the registry's tools with these options.
    ///
    /// # Errors
    ///
    /// As for [`Dispatcher::new`].
    pub fn with_options(registry: Registry, options: DispatchOptions) -> Result<Dispatcher, RegistryError> {
        let entries = registry.into_entries();
        let toolbox = Toolbox::new(entries.iter().map(|entry| (*entry.tool).clone()))?
            .with_options(options.check.clone());
        let mut implementations = HashMap::with_capacity(entries.len());
        let mut tools = HashMap::with_capacity(entries.len());
        for entry in entries {
            implementations.insert(entry.tool.name.clone(), entry.implementation);
            tools.insert(entry.tool.name.clone(), entry.tool);
        }
        Ok(Dispatcher {
            toolbox,
            implementations,
            tools,
            context: RunContext::new(),
            permits: Arc::new(Semaphore::new(options.concurrency.max(1))),
            options,
            hook: None,
        })
    }

    /// Runs tool files' `run` with `context` (its session, HTTP client and
    /// limits; each file's folder replaces its `base_dir`).
    pub fn with_context(mut self, context: RunContext) -> Dispatcher {
        self.context = context;
        self
    }

    /// Asks `hook` before running the calls [`DispatchOptions::confirm`]
    /// picks. Without a hook, those calls are refused with an error result
    /// (no one can be asked).
    pub fn with_confirm<F, Fut>(mut self, hook: F) -> Dispatcher
    where
        F: Fn(ConfirmRequest) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Decision> + Send + 'static,
    {
        self.hook = Some(Arc::new(move |request| Box::pin(hook(request))));
        self
    }

    /// Checks calls made against the tools as `written` wrote them for one
    /// target (a call may use the name a tool got there; rewritten
    /// arguments are restored), see [`Toolbox::with_written`].
    pub fn with_written(mut self, written: &Written) -> Dispatcher {
        self.toolbox = self.toolbox.with_written(written);
        self
    }

    /// The tools, in the order they were added.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.toolbox.tools()
    }

    /// The Toolbox that checks the calls.
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// The options.
    pub fn options(&self) -> &DispatchOptions {
        &self.options
    }

    /// The tools written for `format` (see [`toolbridge::write`]).
    pub fn write_tools(&self, format: Format, options: &toolbridge::WriteOptions) -> Written {
        let tools: Vec<Tool> = self.toolbox.tools().cloned().collect();
        toolbridge::write(&tools, format, options)
    }

    /// Runs one call and gives its result; never fails: a rejection, a
    /// refusal, an error, a panic or a timeout is an error result.
    pub async fn call(&self, call: &ToolCall) -> ToolResult {
        self.call_with_notes(call).await.value
    }

    /// [`call`](Dispatcher::call), with what the Toolbox changed in the
    /// arguments (coercions, defaults, …), each at its place in them.
    pub async fn call_with_notes(&self, call: &ToolCall) -> Converted<ToolResult> {
        let mut notes = Vec::new();
        let prepared = self.prepare(call, &mut notes, self.own_hook()).await;
        let result = match unwrap_never(prepared) {
            Prepared::Answered(result) => result,
            Prepared::Ready(job) => self.start(job, self.context.clone()).await.into_result(call),
        };
        Converted { value: result, notes }
    }

    /// Runs one call in `context` (a session's variables, say — the
    /// dispatcher's own context is not used), with `confirm` deciding a call
    /// [`DispatchOptions::confirm`] picks, in place of the hook of
    /// [`with_confirm`](Dispatcher::with_confirm). Otherwise as
    /// [`call_with_notes`](Dispatcher::call_with_notes): the same check,
    /// concurrency limit, timeout, and error results for failures and panics.
    ///
    /// `confirm` may also defer the call: `Err(deferred)` ends it without
    /// running it and without a result, and `call_in` gives `deferred` back.
    /// An MCP server on the 2026-07-28 revision asks the user this way: it
    /// answers `input_required`, and the client retries the call with the answer.
    ///
    /// ```
    /// # tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// use toolbridge::call::ToolCall;
    /// use toolbridge_runtime::run::RunContext;
    /// use toolbridge_runtime::{Decision, Dispatcher, Registry};
    /// let mut registry = Registry::new();
    /// registry.add_text(r#"{"name": "set_language", "confirm": true, "inputSchema": {"type": "object",
    ///     "properties": {"language": {"type": "string"}}}, "run": {"kind": "context"}}"#,
    ///     None, &Default::default())?;
    /// let dispatcher = Dispatcher::new(registry)?;
    /// let session = RunContext::new();
    /// let call = ToolCall::new("call_1", "set_language", serde_json::json!({"language": "fr"}));
    /// let ran = dispatcher.call_in(&call, &session, |_| async { Ok::<_, &str>(Decision::Run) }).await;
    /// assert_eq!(ran.unwrap().value.text.as_deref(), Some(r#"{"language":"fr"}"#));
    /// assert_eq!(session.session.get("language"), Some(serde_json::json!("fr")));
    /// let deferred = dispatcher.call_in(&call, &session, |_| async { Err("ask later") }).await;
    /// assert_eq!(deferred.unwrap_err(), "ask later");
    /// # Ok::<(), toolbridge_runtime::RegistryError>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// Only what `confirm` defers.
    pub async fn call_in<F, Fut, D>(
        &self,
        call: &ToolCall,
        context: &RunContext,
        confirm: F,
    ) -> Result<Converted<ToolResult>, D>
    where
        F: FnOnce(ConfirmRequest) -> Fut,
        Fut: Future<Output = Result<Decision, D>>,
    {
        let mut notes = Vec::new();
        let result = match self.prepare(call, &mut notes, Some(confirm)).await? {
            Prepared::Answered(result) => result,
            Prepared::Ready(job) => self.start(job, context.clone()).await.into_result(call),
        };
        Ok(Converted { value: result, notes })
    }

    /// A dispatcher over the registry's tools with this one's options,
    /// context and confirmation hook, whose calls count against this one's
    /// concurrency limit (calls still running here keep their slots): how
    /// a server swaps in reloaded tools while calls are in flight.
    ///
    /// # Errors
    ///
    /// As for [`Dispatcher::new`].
    pub fn reload(&self, registry: Registry) -> Result<Dispatcher, RegistryError> {
        let mut reloaded = Dispatcher::with_options(registry, self.options.clone())?;
        reloaded.context = self.context.clone();
        reloaded.permits = Arc::clone(&self.permits);
        reloaded.hook = self.hook.clone();
        Ok(reloaded)
    }

    /// Runs the calls of one model turn and gives their results in the
    /// order of the calls. Each is checked and, where asked for, confirmed
    /// in order (the hook sees one call at a time); the accepted ones run
    /// concurrently, at most [`concurrency`](DispatchOptions::concurrency)
    /// at once.
    pub async fn dispatch(&self, calls: &[ToolCall]) -> Vec<ToolResult> {
        self.dispatch_with_notes(calls).await.value
    }

    /// [`dispatch`](Dispatcher::dispatch), with the notes of every call;
    /// each points into its call's arguments, under `/<index>`.
    pub async fn dispatch_with_notes(&self, calls: &[ToolCall]) -> Converted<Vec<ToolResult>> {
        let mut notes = Vec::new();
        let mut pending: Vec<Pending> = Vec::with_capacity(calls.len());
        for (index, call) in calls.iter().enumerate() {
            let mut call_notes = Vec::new();
            let prepared = unwrap_never(self.prepare(call, &mut call_notes, self.own_hook()).await);
            notes.extend(call_notes.into_iter().map(|note| under(note, index)));
            pending.push(match prepared {
                Prepared::Answered(result) => Pending::Answered(Box::new(result)),
                Prepared::Ready(job) => {
                    let name = job.tool.name.clone();
                    let permits = Arc::clone(&self.permits);
                    let context = self.context.clone();
                    Pending::Running(tokio::spawn(supervise(job, permits, context)), name)
                }
            });
        }
        let mut results = Vec::with_capacity(calls.len());
        for (call, pending) in calls.iter().zip(pending) {
            results.push(match pending {
                Pending::Answered(result) => *result,
                Pending::Running(handle, name) => match handle.await {
                    Ok(output) => output.into_result(call),
                    Err(error) => failure(&name, error).into_result(call),
                },
            });
        }
        Converted {
            value: results,
            notes,
        }
    }

    /// Reads the calls of a provider's whole response, runs them, and
    /// writes their results as that provider takes them back.
    ///
    /// # Errors
    ///
    /// The response is not `format`'s (see [`Format::read_calls`]), or
    /// `format` has no result shape.
    pub async fn reply(
        &self,
        format: Format,
        response: &Value,
        options: &CallOptions,
    ) -> Result<Reply, toolbridge::Error> {
        let read = format.read_calls(response, options)?;
        let mut notes = read.notes;
        let calls = read.value;
        for call in &calls {
            notes.extend(call.notes.iter().cloned());
        }
        let dispatched = self.dispatch_with_notes(&calls).await;
        notes.extend(dispatched.notes);
        let results = dispatched.value;
        let message = if calls.is_empty() {
            None
        } else {
            let written = format.write_results(&results)?;
            notes.extend(written.notes);
            Some(written.value)
        };
        Ok(Reply {
            calls,
            results,
            message,
            notes,
        })
    }

    /// The hook of [`with_confirm`](Dispatcher::with_confirm) as `prepare`
    /// takes it.
    #[allow(clippy::type_complexity)]
    fn own_hook(
        &self,
    ) -> Option<impl FnOnce(ConfirmRequest) -> BoxFuture<Result<Decision, Infallible>> + '_> {
        self.hook.as_ref().map(|hook| {
            move |request| -> BoxFuture<Result<Decision, Infallible>> {
                let decided = hook(request);
                Box::pin(async move { Ok(decided.await) })
            }
        })
    }

    /// Checks a call and asks `confirm` (no one can be asked without it):
    /// the result when it will not run, else what to run; `Err` when
    /// `confirm` deferred the call.
    async fn prepare<F, Fut, D>(
        &self,
        call: &ToolCall,
        notes: &mut Vec<Note>,
        confirm: Option<F>,
    ) -> Result<Prepared, D>
    where
        F: FnOnce(ConfirmRequest) -> Fut,
        Fut: Future<Output = Result<Decision, D>>,
    {
        let accepted = match self.toolbox.check(call) {
            Checked::Rejected(rejection) => {
                notes.extend(rejection.notes.iter().cloned());
                return Ok(Prepared::Answered(rejection.to_result(call)));
            }
            Checked::Accepted(accepted) => accepted,
        };
        notes.extend(accepted.notes.iter().cloned());
        let (Some(tool), Some(implementation)) = (
            self.tools.get(&accepted.name),
            self.implementations.get(&accepted.name),
        ) else {
            return Ok(Prepared::Answered(ToolResult::error(
                call,
                format!("The tool `{}` has no implementation here.", accepted.name),
            )));
        };
        let Value::Object(mut arguments) = accepted.arguments else {
            return Ok(Prepared::Answered(ToolResult::error(
                call,
                "The arguments must be one JSON object.",
            )));
        };
        if self.asks(tool) {
            let Some(confirm) = confirm else {
                return Ok(Prepared::Answered(ToolResult::error(
                    call,
                    format!(
                        "The call to `{}` needs the user's confirmation, and no one can be asked here; it did not run.",
                        tool.name
                    ),
                )));
            };
            let request = ConfirmRequest {
                call: call.clone(),
                tool: Arc::clone(tool),
                arguments: arguments.clone(),
            };
            match confirm(request).await? {
                Decision::Run => {}
                Decision::Reject { reason } => {
                    return Ok(Prepared::Answered(ToolResult::error(
                        call,
                        format!("Tool call rejected. {reason}"),
                    )));
                }
                Decision::Edit(edited) => {
                    let mut edited_call = call.clone();
                    edited_call.name = tool.name.clone();
                    edited_call.arguments = Ok(Value::Object(edited));
                    edited_call.raw_arguments = None;
                    match self.toolbox.check(&edited_call) {
                        Checked::Rejected(rejection) => {
                            notes.extend(rejection.notes.iter().cloned());
                            return Ok(Prepared::Answered(rejection.to_result(call)));
                        }
                        Checked::Accepted(accepted) => {
                            notes.push(Note::new(
                                NoteKind::Rewritten {
                                    keyword: "arguments".into(),
                                },
                                Pointer::root(),
                                "the arguments were edited before the call ran (confirmation hook)",
                            ));
                            notes.extend(accepted.notes.iter().cloned());
                            match accepted.arguments {
                                Value::Object(map) => arguments = map,
                                _ => {
                                    return Ok(Prepared::Answered(ToolResult::error(
                                        call,
                                        "The arguments must be one JSON object.",
                                    )))
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(Prepared::Ready(Job {
            timeout: self.timeout_for(tool),
            tool: Arc::clone(tool),
            implementation: implementation.clone(),
            arguments,
        }))
    }

    /// Runs a job in `context` (under a permit and the timeout) and waits for it.
    async fn start(&self, job: Job, context: RunContext) -> Output {
        let name = job.tool.name.clone();
        match tokio::spawn(supervise(job, Arc::clone(&self.permits), context)).await {
            Ok(output) => output,
            Err(error) => failure(&name, error),
        }
    }

    /// True when the hook is asked before `tool` runs.
    fn asks(&self, tool: &Tool) -> bool {
        match self.options.confirm {
            ConfirmPolicy::Always => true,
            ConfirmPolicy::Never => false,
            ConfirmPolicy::Auto => matches!(
                &tool.confirm,
                Some(Confirm::Always(true)) | Some(Confirm::When(_))
            ),
        }
    }

    /// The dispatcher's timeout, or a longer one a tool file's `run`
    /// declares (plus a grace second for it to answer itself).
    fn timeout_for(&self, tool: &Tool) -> Duration {
        let declared = match &tool.run {
            Some(Run::Endpoint(endpoint)) => Some(
                endpoint
                    .timeout
                    .and_then(seconds)
                    .unwrap_or(self.context.limits.endpoint_timeout),
            ),
            Some(Run::Command(command)) => Some(
                command
                    .timeout
                    .and_then(seconds)
                    .unwrap_or(self.context.limits.command_timeout),
            ),
            _ => None,
        };
        match declared {
            Some(declared) => self.options.timeout.max(declared.saturating_add(GRACE)),
            None => self.options.timeout,
        }
    }
}

/// A call of a batch: answered, or running as a task.
enum Pending {
    Answered(Box<ToolResult>),
    Running(JoinHandle<Output>, String),
}

/// Waits for a permit, then runs the job; the timeout counts from the
/// start of the wait, so that calls queued behind stuck ones are answered
/// too. The answer is always an [`Output`].
async fn supervise(job: Job, permits: Arc<Semaphore>, context: RunContext) -> Output {
    let deadline = tokio::time::Instant::now() + job.timeout;
    let permit = match tokio::time::timeout_at(deadline, permits.acquire_owned()).await {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => {
            return Output::error(format!(
                "The call to `{}` could not start: the dispatcher is closed.",
                job.tool.name
            ))
        }
        Err(_) => {
            return Output::error(format!(
                "The call to `{}` did not start within {} (the time limit for a call): other calls \
                 held every slot (the limit on calls running at once); it did not run.",
                job.tool.name,
                human(job.timeout)
            ))
        }
    };
    let Job {
        tool,
        implementation,
        arguments,
        timeout,
    } = job;
    let name = tool.name.clone();
    // The permit goes with the running code: a blocking handler that
    // overruns its timeout keeps its slot until it returns.
    let handle: JoinHandle<Output> = match implementation {
        Implementation::Rust(handler) => match handler.kind().clone() {
            Kind::Sync(function) => tokio::task::spawn_blocking(move || {
                let _permit = permit;
                function(arguments)
            }),
            Kind::Async(function) => tokio::spawn(async move {
                let _permit = permit;
                function(arguments).await
            }),
        },
        Implementation::Run { base_dir } => {
            let mut context = context;
            context.base_dir = base_dir;
            tokio::spawn(async move {
                let _permit = permit;
                run::run(&tool, arguments, &context).await
            })
        }
    };
    let abort = handle.abort_handle();
    match tokio::time::timeout_at(deadline, handle).await {
        Ok(Ok(output)) => output,
        Ok(Err(error)) => failure(&name, error),
        Err(_) => {
            abort.abort();
            Output::error(format!(
                "The call to `{name}` did not finish within {} (the time limit for a call) and was given up; \
                 its result is lost.",
                human(timeout)
            ))
        }
    }
}

/// What `prepare` gave when nothing could defer the call.
fn unwrap_never(prepared: Result<Prepared, Infallible>) -> Prepared {
    match prepared {
        Ok(prepared) => prepared,
        Err(never) => match never {},
    }
}

/// The error result of a task that panicked or was cancelled.
fn failure(name: &str, error: tokio::task::JoinError) -> Output {
    if error.is_panic() {
        let payload = error.into_panic();
        let message = payload
            .downcast_ref::<&str>()
            .map(|text| text.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned());
        match message {
            Some(message) => Output::error(format!(
                "The tool `{name}` failed: it panicked with {:?}.",
                trimmed(&message, 500)
            )),
            None => Output::error(format!("The tool `{name}` failed: it panicked.")),
        }
    } else {
        Output::error(format!("The call to `{name}` was cancelled before it finished."))
    }
}

/// `text`, cut to at most `max` characters with `…`.
fn trimmed(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// A duration for people: `250 ms`, `2 s`, `1.5 s`.
fn human(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis} ms")
    } else if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

/// Seconds from a tool file, if they make a duration.
fn seconds(value: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(value).ok()
}

/// A call's note, placed under its index in the batch.
fn under(mut note: Note, index: usize) -> Note {
    note.at = Pointer::root().index(index).join(&note.at);
    note
}
