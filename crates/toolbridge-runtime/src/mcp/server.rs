//! The MCP server over a folder of tool files: `tools/list`, `tools/call`,
//! list-change notifications, and the reload that feeds them.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, InputRequiredResult,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
    SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData as McpError, ServerHandler};
use serde_json::{json, Map, Value};
use tokio::sync::watch;
use toolbridge::call::{ToolCall, ToolResult};
use toolbridge::Limits;

use super::catalog::{Catalog, Fingerprint, Problem, Served};
use super::confirm::{self, Answer};
use crate::dispatch::{self, ConfirmRequest, Decision, DispatchOptions, Dispatcher};
use crate::run::RunContext;
use crate::session::Session;

/// What `serve` does with a tool whose file says `confirm: true`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfirmPolicy {
    /// Ask the client's user (MCP elicitation); refuse the call when the
    /// client cannot be asked.
    #[default]
    Ask,
    /// Run without asking (the operator vouches for every call).
    Allow,
}

/// How a server behaves; the defaults suit one local client.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ServeOptions {
    /// Confirmation of `confirm: true` tools.
    pub confirm: ConfirmPolicy,
    /// Calls running at once, over all clients; more wait their turn
    /// within their timeout.
    pub max_concurrent_calls: usize,
    /// How long one call may take, waiting for its turn included (a tool
    /// file whose `run` declares a longer timeout gets that, as in the
    /// [`Dispatcher`]); asking the user to confirm has a limit as long.
    pub call_timeout: Duration,
    /// The largest HTTP request body accepted (larger: 413).
    pub max_request_bytes: usize,
    /// How often the folder is looked at for changes; `None` turns
    /// reloading off.
    pub poll_interval: Option<Duration>,
    /// How long a client may keep a `tools/list` answer (`ttlMs`).
    pub list_ttl: Duration,
    /// Tools per `tools/list` page.
    pub page_size: usize,
    /// Over HTTP, keep a session for each client that starts with
    /// `initialize` (2025-11-25 and before), so that it hears of list
    /// changes and can be asked to confirm. Off, every request stands
    /// alone for all protocol versions, as 2026-07-28 requests always do:
    /// replicas behind a load balancer then share nothing.
    pub sessions: bool,
    /// Most sessions kept at once over HTTP (default 1,024); past it,
    /// `initialize` is refused with an error naming this limit. An idle
    /// session ends after five minutes (rmcp's keep-alive).
    pub max_sessions: usize,
    /// Bounds on tool files and call arguments.
    pub limits: Limits,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            confirm: ConfirmPolicy::Ask,
            max_concurrent_calls: 64,
            call_timeout: Duration::from_secs(60),
            max_request_bytes: 4 * 1024 * 1024,
            poll_interval: Some(Duration::from_secs(1)),
            list_ttl: Duration::from_secs(10),
            page_size: 100,
            sessions: true,
            max_sessions: 1024,
            limits: Limits::default(),
        }
    }
}

/// A served folder of tool files, ready to serve over stdio or HTTP.
///
/// ```no_run
/// # async fn demo() -> std::io::Result<()> {
/// use toolbridge_runtime::mcp::{ServeOptions, Server};
/// let server = Server::new("examples/tools", ServeOptions::default());
/// for problem in server.problems() {
///     eprintln!("{problem}");
/// }
/// server.serve_stdio().await
/// # }
/// ```
#[derive(Clone)]
pub struct Server {
    pub(crate) shared: Arc<Shared>,
}

type Reporter = Arc<dyn Fn(&Problem) + Send + Sync>;

pub(crate) struct Shared {
    dir: PathBuf,
    pub(crate) options: ServeOptions,
    state: RwLock<(Arc<Catalog>, Fingerprint)>,
    /// Bumped on every reload that changed the folder.
    changes: watch::Sender<u64>,
    /// The HTTP client and limits every run starts from.
    context: RunContext,
    reporter: RwLock<Reporter>,
}

impl Server {
    /// Reads the tool files under `dir` (sub-folders too).
    pub fn new(dir: impl Into<PathBuf>, options: ServeOptions) -> Server {
        let dir = dir.into();
        let fingerprint = Fingerprint::of(&dir);
        let context = RunContext::new();
        let dispatch = DispatchOptions::default()
            .with_concurrency(options.max_concurrent_calls)
            .with_timeout(options.call_timeout)
            .with_confirm(match options.confirm {
                ConfirmPolicy::Ask => dispatch::ConfirmPolicy::Auto,
                ConfirmPolicy::Allow => dispatch::ConfirmPolicy::Never,
            });
        let catalog = Catalog::load(&dir, &options.limits, |registry| {
            Ok(Dispatcher::with_options(registry, dispatch.clone())?.with_context(context.clone()))
        });
        let (changes, _) = watch::channel(0);
        Server {
            shared: Arc::new(Shared {
                dir,
                options,
                state: RwLock::new((Arc::new(catalog), fingerprint)),
                changes,
                context,
                reporter: RwLock::new(Arc::new(|problem: &Problem| eprintln!("{problem}"))),
            }),
        }
    }

    /// Sets what is done with the problems a reload finds (default: print
    /// them on stderr).
    pub fn on_reload_problem(self, report: impl Fn(&Problem) + Send + Sync + 'static) -> Server {
        *self.shared.reporter.write().expect("not poisoned") = Arc::new(report);
        self
    }

    /// What reading the folder found: files skipped, tools not served.
    pub fn problems(&self) -> Vec<Problem> {
        self.shared.catalog().problems.clone()
    }

    /// The names of the served tools, in listing order.
    pub fn tool_names(&self) -> Vec<String> {
        self.shared.catalog().tools.keys().cloned().collect()
    }

    /// Serves one client on stdin/stdout until it disconnects.
    ///
    /// # Errors
    ///
    /// When the client does not complete the handshake or the transport fails.
    pub async fn serve_stdio(self) -> std::io::Result<()> {
        use rmcp::ServiceExt;
        let reload = self.spawn_reload();
        let handler = Handler::new(self.shared.clone());
        let running = handler
            .serve(rmcp::transport::stdio())
            .await
            .map_err(std::io::Error::other)?;
        let result = running.waiting().await;
        reload.abort();
        result.map(|_| ()).map_err(std::io::Error::other)
    }

    /// Starts the reload poller; the handle stops it.
    pub(crate) fn spawn_reload(&self) -> tokio::task::JoinHandle<()> {
        let shared = self.shared.clone();
        tokio::spawn(async move {
            let Some(interval) = shared.options.poll_interval else {
                return;
            };
            loop {
                tokio::time::sleep(interval).await;
                let reloader = shared.clone();
                match tokio::task::spawn_blocking(move || reloader.reload_if_changed()).await {
                    Ok(true) => {
                        shared.changes.send_modify(|generation| *generation += 1);
                    }
                    Ok(false) => {}
                    Err(err) => eprintln!("error: reloading the tools failed: {err}"),
                }
            }
        })
    }
}

impl Shared {
    pub(crate) fn catalog(&self) -> Arc<Catalog> {
        self.state.read().expect("not poisoned").0.clone()
    }

    /// Reads the folder again when its files changed; true when it did.
    fn reload_if_changed(&self) -> bool {
        let fingerprint = Fingerprint::of(&self.dir);
        if self.state.read().expect("not poisoned").1 == fingerprint {
            return false;
        }
        let previous = self.catalog();
        let catalog = Catalog::load(&self.dir, &self.options.limits, |registry| {
            previous.dispatcher.reload(registry)
        });
        let report = self.reporter.read().expect("not poisoned").clone();
        for problem in &catalog.problems {
            report(problem);
        }
        *self.state.write().expect("not poisoned") = (Arc::new(catalog), fingerprint);
        true
    }
}

/// One connection's view of the server: shared tools, its own session.
#[derive(Clone)]
pub(crate) struct Handler {
    shared: Arc<Shared>,
    /// The session variables `context` tools set on this connection.
    session: Arc<Session>,
}

/// Why a served call ended without a result of its own.
enum Deferred {
    /// The user is asked by an `input_required` answer (2026-07-28).
    Pending(InputRequiredResult),
    /// Asking the user took longer than a call may.
    TimedOut,
}

impl Handler {
    pub(crate) fn new(shared: Arc<Shared>) -> Handler {
        Handler {
            shared,
            session: Arc::new(Session::new()),
        }
    }

    /// Runs one call through the catalog's [`Dispatcher`] (checked,
    /// confirmed, run under its limits) in this connection's session.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let catalog = self.shared.catalog();
        let id = match serde_json::to_value(&context.id) {
            Ok(Value::String(id)) => id,
            Ok(other) => other.to_string(),
            Err(_) => "call".into(),
        };
        let arguments = Value::Object(request.arguments.clone().unwrap_or_default());
        let call = ToolCall::new(id, request.name.as_ref(), arguments);
        let run_context = self.shared.context.clone().with_session(self.session.clone());
        let timeout = self.shared.options.call_timeout;
        let confirm = |asked: ConfirmRequest| {
            let (request, context) = (&request, &context);
            async move {
                let arguments = Value::Object(asked.arguments);
                let answer = confirm::ask(&asked.tool, &arguments, request, context);
                match tokio::time::timeout(timeout, answer).await {
                    Err(_) => Err(Deferred::TimedOut),
                    Ok(Answer::Yes) => Ok(Decision::Run),
                    Ok(Answer::No(reason)) => Ok(Decision::reject_because(reason)),
                    Ok(Answer::Pending(pending)) => Err(Deferred::Pending(pending)),
                }
            }
        };
        let served = catalog.tools.get(call.name.as_str());
        match catalog.dispatcher.call_in(&call, &run_context, confirm).await {
            Ok(result) => CallToolResponse::Complete(to_mcp(result.value, served)),
            Err(Deferred::Pending(pending)) => CallToolResponse::InputRequired(pending),
            Err(Deferred::TimedOut) => CallToolResponse::Complete(to_mcp(
                ToolResult::error(
                    &call,
                    format!(
                        "`{}` was not confirmed within {} s; it did not run.",
                        call.name,
                        timeout.as_secs_f64()
                    ),
                ),
                None,
            )),
        }
    }
}

/// The library's result as an MCP `CallToolResult`: the text as a text
/// block (structured values also as JSON text, for clients that read only
/// text), `structuredContent` when there is a structured value (wrapped
/// as the listing's output schema is), `isError`, `_meta`.
fn to_mcp(result: ToolResult, served: Option<&Served>) -> CallToolResult {
    let text = match (&result.text, &result.structured) {
        (Some(text), _) => text.clone(),
        (None, Some(value)) => value.to_string(),
        (None, None) => String::new(),
    };
    let mut object = Map::new();
    // rmcp leaves it out for peers older than 2026-07-28.
    object.insert("resultType".into(), json!("complete"));
    object.insert("content".into(), json!([{"type": "text", "text": text}]));
    if let Some(structured) = result.structured {
        let structured = match served {
            Some(served) if served.wraps_output => json!({ "result": structured }),
            _ => structured,
        };
        object.insert("structuredContent".into(), structured);
    }
    object.insert("isError".into(), Value::Bool(result.is_error));
    if let Some(meta) = result.meta {
        object.insert("_meta".into(), Value::Object(meta));
    }
    serde_json::from_value(Value::Object(object)).expect("a CallToolResult's JSON form")
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
        .with_server_info(Implementation::new("toolbridge", env!("CARGO_PKG_VERSION")))
    }

    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let catalog = self.shared.catalog();
        let page_size = self.shared.options.page_size.max(1);
        let start = match request.and_then(|request| request.cursor) {
            None => 0,
            Some(cursor) => cursor
                .parse::<usize>()
                .ok()
                .filter(|&start| start <= catalog.tools.len())
                .ok_or_else(|| McpError::invalid_params(format!("unknown cursor {cursor:?}"), None))?,
        };
        let tools: Vec<rmcp::model::Tool> = catalog
            .tools
            .values()
            .skip(start)
            .take(page_size)
            .map(|served| served.listed.clone())
            .collect();
        let next = start + tools.len();
        let mut result = ListToolsResult::with_all_items(tools)
            .with_ttl_ms(u64::try_from(self.shared.options.list_ttl.as_millis()).unwrap_or(u64::MAX))
            .with_cache_scope(CacheScope::Public);
        if next < catalog.tools.len() {
            result.next_cursor = Some(next.to_string());
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        Ok(self.call(request, context).await)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A session that began with `initialize` hears of list changes as
        // plain notifications; the task ends with the first one that fails.
        let peer = context.peer;
        let mut changes = self.shared.changes.subscribe();
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                if peer.is_transport_closed() || peer.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
        });
    }

    fn accepted_subscription_filter(&self, _requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let mut changes = self.shared.changes.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() || context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}
