//! Streamable HTTP at `/mcp`: rmcp's tower service on hyper's HTTP/1
//! server. Requests on the 2026-07-28 revision are stateless (any replica
//! can answer any request); 2025-11-25 clients get a session after
//! `initialize` unless [`ServeOptions::sessions`](super::ServeOptions::sessions) is off.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use super::server::{Handler, Server};
use super::sessions::{BoundedSessions, SessionError};

/// The path the MCP endpoint answers on.
pub const PATH: &str = "/mcp";

/// A server bound to an address, not yet answering.
pub struct HttpServer {
    listener: TcpListener,
    server: Server,
    allowed_hosts: Vec<String>,
}

impl Server {
    /// Binds `addr` for streamable HTTP (port 0 picks a free port; see
    /// [`HttpServer::local_addr`]).
    ///
    /// # Errors
    ///
    /// When the address cannot be bound.
    pub async fn bind_http(self, addr: SocketAddr) -> std::io::Result<HttpServer> {
        let listener = TcpListener::bind(addr).await?;
        Ok(HttpServer {
            listener,
            server: self,
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
        })
    }
}

impl HttpServer {
    /// The address bound.
    ///
    /// # Errors
    ///
    /// As the socket's own `local_addr`.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Accepts requests whose `Host` is one of `hosts` (names or
    /// `name:port`) besides the loopback names; an empty list accepts any
    /// host (behind a load balancer). The check guards a local server
    /// against DNS rebinding.
    pub fn with_allowed_hosts(mut self, hosts: Vec<String>) -> HttpServer {
        if hosts.is_empty() {
            self.allowed_hosts.clear();
        } else {
            self.allowed_hosts.extend(hosts);
        }
        self
    }

    /// Answers requests until the process ends.
    ///
    /// # Errors
    ///
    /// Never for one connection's failure (it is dropped); only when
    /// accepting connections fails for good.
    pub async fn run(self) -> std::io::Result<()> {
        let shared = self.server.shared.clone();
        let options = &shared.options;
        let mut config = StreamableHttpServerConfig::default()
            .with_legacy_session_mode(options.sessions)
            .with_max_request_body_bytes(options.max_request_bytes)
            .with_json_response(true);
        config = if self.allowed_hosts.is_empty() {
            config.disable_allowed_hosts()
        } else {
            config.with_allowed_hosts(self.allowed_hosts.clone())
        };
        let factory_shared = shared.clone();
        let service = StreamableHttpService::new(
            move || Ok(Handler::new(factory_shared.clone())),
            Arc::new(BoundedSessions::new(options.max_sessions.max(1))),
            config,
        );
        let reload = self.server.spawn_reload();
        let result = accept_loop(self.listener, TowerToHyperService::new(service)).await;
        reload.abort();
        result
    }
}

type Mcp = TowerToHyperService<StreamableHttpService<Handler, BoundedSessions>>;

async fn accept_loop(listener: TcpListener, service: Mcp) -> std::io::Result<()> {
    loop {
        let (stream, _) = match listener.accept().await {
            Ok(accepted) => accepted,
            // Out of file descriptors and the like: wait, do not spin.
            Err(err) if is_transient(&err) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
            Err(err) => return Err(err),
        };
        let service = service.clone();
        tokio::spawn(async move {
            let answer = hyper::service::service_fn(move |request: Request<Incoming>| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(route(service, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(std::time::Duration::from_secs(30))
                .serve_connection(TokioIo::new(stream), answer)
                .await;
        });
    }
}

async fn route(service: Mcp, request: Request<Incoming>) -> Response<BoxBody<Bytes, Infallible>> {
    if request.uri().path() != PATH {
        let mut response = Response::new(Full::from("not found: the MCP endpoint is /mcp\n").boxed());
        *response.status_mut() = StatusCode::NOT_FOUND;
        return response;
    }
    let response = match hyper::service::Service::call(&service, request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    if response.status() == StatusCode::INTERNAL_SERVER_ERROR {
        return unavailable_when_full(response).await;
    }
    response
}

/// rmcp answers a session it could not create with 500. When the reason is
/// the session limit, the answer is 503 with `Retry-After` instead: the
/// server is well and full, and a load balancer or client should retry or
/// go to another replica rather than report a server fault.
async fn unavailable_when_full(
    response: Response<BoxBody<Bytes, Infallible>>,
) -> Response<BoxBody<Bytes, Infallible>> {
    let (mut parts, body) = response.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(never) => match never {},
    };
    if body
        .windows(SessionError::FULL_MARK.len())
        .any(|window| window == SessionError::FULL_MARK.as_bytes())
    {
        parts.status = StatusCode::SERVICE_UNAVAILABLE;
        parts.headers.insert(
            hyper::header::RETRY_AFTER,
            hyper::header::HeaderValue::from_static("5"),
        );
    }
    Response::from_parts(parts, Full::from(body).boxed())
}

fn is_transient(err: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        err.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    ) || err.raw_os_error().is_some_and(|code| code == 23 || code == 24)
}
