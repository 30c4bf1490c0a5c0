//! `endpoint` tools against a local HTTP server started by each test.
//!
//! The server is a few lines of HTTP/1.1 on a tokio `TcpListener` (no
//! server framework: the tests need only to see each request and to answer
//! with a chosen status, headers, body or delay).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use toolbridge::Tool;
use toolbridge_runtime::output::Output;
use toolbridge_runtime::run::{run, RunContext, RunLimits};

/// A request as the server saw it.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

struct Server {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    /// Answers by path: `/slow` after 10 s, `/big` 100,000 bytes without a
    /// length, `/missing` 404, `/redirect/local` 302 to `/echo` on the same
    /// host, `/redirect/away` 302 to `localhost` (another host name),
    /// `/redirect/see-other` 303 to `/echo`, anything else 200 echoing the
    /// request as `METHOD target body`.
    async fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let log = log.clone();
                tokio::spawn(async move {
                    let Some(request) = read_request(&mut stream).await else {
                        return;
                    };
                    log.lock().unwrap().push(request.clone());
                    let path = request.target.split('?').next().unwrap_or_default().to_string();
                    let (status, extra, body) = match path.as_str() {
                        "/slow" => {
                            tokio::time::sleep(Duration::from_secs(10)).await;
                            ("200 OK", String::new(), "late".to_string())
                        }
                        "/big" => {
                            let head = "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n";
                            let _ = stream.write_all(head.as_bytes()).await;
                            let _ = stream.write_all(&vec![b'x'; 100_000]).await;
                            return;
                        }
                        "/missing" => (
                            "404 Not Found",
                            String::new(),
                            "  \n no such user  \n".to_string(),
                        ),
                        "/redirect/local" => (
                            "302 Found",
                            "location: /echo/after\r\n".to_string(),
                            String::new(),
                        ),
                        "/redirect/see-other" => (
                            "303 See Other",
                            "location: /echo/after\r\n".to_string(),
                            String::new(),
                        ),
                        "/redirect/away" => (
                            "302 Found",
                            format!("location: http://localhost:{port}/echo/away\r\n"),
                            String::new(),
                        ),
                        "/json" => ("200 OK", String::new(), r#"{"temperature": 21.5}"#.to_string()),
                        _ => (
                            "200 OK",
                            String::new(),
                            format!("{} {} {}", request.method, request.target, request.body),
                        ),
                    };
                    let answer = format!(
                        "HTTP/1.1 {status}\r\ncontent-length: {}\r\nconnection: close\r\n{extra}\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes()).await;
                });
            }
        });
        Server { port, seen }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

async fn read_request(stream: &mut tokio::net::TcpStream) -> Option<Seen> {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            return None;
        }
        bytes.extend_from_slice(&buffer[..read]);
        if let Some(at) = bytes.windows(4).position(|window| window == b"\r\n\r\n") {
            break at;
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, target) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(name, _)| name == "content-length")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or(0);
    let mut body = bytes[head_end + 4..].to_vec();
    while body.len() < length {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            break;
        }
        body.extend_from_slice(&buffer[..read]);
    }
    Some(Seen {
        method,
        target,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

fn tool(run: Value) -> Tool {
    serde_json::from_value(json!({"name": "t", "inputSchema": {"type": "object"}, "run": run})).unwrap()
}

async fn call(tool: &Tool, args: Value, context: &RunContext) -> Output {
    run(tool, args.as_object().cloned().unwrap_or_else(Map::new), context).await
}

#[tokio::test]
async fn query_placement_with_a_path_slot_lists_and_booleans() {
    let server = Server::start().await;
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/users/{id}"), "method": "get",
        "argumentLocation": "query"}),
    );
    let output = call(
        &tool,
        json!({"id": "a/b é", "tag": ["x", "y z"], "active": true, "limit": 5}),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output,
        Output::text("GET /users/a%2Fb%20%C3%A9?tag=x&tag=y+z&active=true&limit=5 ")
    );
}

#[tokio::test]
async fn path_placement_and_a_missing_slot_argument() {
    let server = Server::start().await;
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/items/{kind}/{id}"), "method": "delete",
        "argumentLocation": "path"}),
    );
    let output = call(&tool, json!({"kind": "book", "id": 42}), &RunContext::new()).await;
    assert_eq!(output, Output::text("DELETE /items/book/42 "));
    let output = call(&tool, json!({"kind": "book"}), &RunContext::new()).await;
    assert_eq!(
        output,
        Output::error("tool \"t\": the URL's {id} slot has no argument")
    );
    let output = call(
        &tool,
        json!({"kind": "book", "id": 1, "extra": true}),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output,
        Output::error("tool \"t\": the argument \"extra\" goes in the path, but the URL has no {extra} slot")
    );
    assert_eq!(server.seen().len(), 1);
}

#[tokio::test]
async fn form_and_json_body_placement_with_per_parameter_locations() {
    let server = Server::start().await;
    let form = tool(
        json!({"kind": "endpoint", "url": server.url("/form"), "method": "post",
        "argumentLocation": "form", "parameterLocations": {"page": "query"}}),
    );
    let output = call(
        &form,
        json!({"name": "Ada L", "tags": ["a", "b"], "ok": false, "page": 2}),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output,
        Output::text("POST /form?page=2 name=Ada+L&tags=a&tags=b&ok=false")
    );
    let body = tool(
        json!({"kind": "endpoint", "url": server.url("/users/{id}"), "method": "put",
        "argumentLocation": "body", "parameterLocations": {"dry_run": "query"}}),
    );
    let output = call(
        &body,
        json!({"id": 7, "profile": {"age": 36}, "tags": ["a"], "dry_run": true}),
        &RunContext::new(),
    )
    .await;
    assert_eq!(
        output,
        Output::text(r#"PUT /users/7?dry_run=true {"profile":{"age":36},"tags":["a"]}"#)
    );
    let seen = server.seen();
    assert_eq!(
        seen[0].header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    assert_eq!(seen[1].header("content-type"), Some("application/json"));
    let both = tool(
        json!({"kind": "endpoint", "url": server.url("/x"), "method": "post",
        "argumentLocation": "body", "parameterLocations": {"f": "form"}}),
    );
    let output = call(&both, json!({"b": 1, "f": 2}), &RunContext::new()).await;
    assert_eq!(
        output,
        Output::error(
            "tool \"t\": arguments go both in a JSON body (b) and a form body (f); a request has one body"
        )
    );
}

#[tokio::test]
async fn headers_come_from_the_environment_and_an_unset_one_is_an_error() {
    let server = Server::start().await;
    // No other test reads or writes these variables.
    std::env::set_var("TOOLBRIDGE_TEST_TOKEN", "s3cret");
    std::env::remove_var("TOOLBRIDGE_TEST_UNSET");
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/h"), "method": "get", "argumentLocation": "query",
        "headers": {"Authorization": "Bearer ${TOOLBRIDGE_TEST_TOKEN}", "X-Fixed": "1"}}),
    );
    let output = call(&tool, json!({}), &RunContext::new()).await;
    assert_eq!(output, Output::text("GET /h "));
    let seen = server.seen();
    assert_eq!(seen[0].header("authorization"), Some("Bearer s3cret"));
    assert_eq!(seen[0].header("x-fixed"), Some("1"));
    let unset = self::tool(
        json!({"kind": "endpoint", "url": server.url("/h"), "method": "get", "argumentLocation": "query",
        "headers": {"X-Key": "${TOOLBRIDGE_TEST_UNSET}"}}),
    );
    let output = call(&unset, json!({}), &RunContext::new()).await;
    assert_eq!(
        output,
        Output::error(
            "tool \"t\": the header \"X-Key\" needs the environment variable TOOLBRIDGE_TEST_UNSET, which is not set"
        )
    );
    assert_eq!(server.seen().len(), 1, "no request is made without the header");
}

#[tokio::test]
async fn a_slow_endpoint_times_out() {
    let server = Server::start().await;
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/slow"), "method": "get",
        "argumentLocation": "query", "timeout": 0.3}),
    );
    let started = Instant::now();
    let output = call(&tool, json!({}), &RunContext::new()).await;
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        output,
        Output::error("tool \"t\": the endpoint did not answer within 0.3 s")
    );
    let tool = self::tool(
        json!({"kind": "endpoint", "url": server.url("/slow"), "method": "get", "argumentLocation": "query"}),
    );
    let context =
        RunContext::new().with_limits(RunLimits::default().with_endpoint_timeout(Duration::from_millis(200)));
    assert_eq!(
        call(&tool, json!({}), &context).await,
        Output::error("tool \"t\": the endpoint did not answer within 0.2 s")
    );
}

#[tokio::test]
async fn an_oversize_response_is_an_error() {
    let server = Server::start().await;
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/big"), "method": "get", "argumentLocation": "query"}),
    );
    let context = RunContext::new().with_limits(RunLimits::default().with_max_response_bytes(1000));
    assert_eq!(
        call(&tool, json!({}), &context).await,
        Output::error("tool \"t\": the response is larger than 1000 bytes")
    );
    let output = call(&tool, json!({}), &RunContext::new()).await;
    assert_eq!(output.text.map(|text| text.len()), Some(100_000));
}

#[tokio::test]
async fn a_non_2xx_status_is_an_error_with_the_trimmed_body() {
    let server = Server::start().await;
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/missing"), "method": "get", "argumentLocation": "query"}),
    );
    assert_eq!(
        call(&tool, json!({}), &RunContext::new()).await,
        Output::error("HTTP 404 Not Found: no such user")
    );
}

#[tokio::test]
async fn redirects_are_followed_only_to_allowed_hosts() {
    let server = Server::start().await;
    let allowed = RunLimits::default().with_allowed_hosts([format!("127.0.0.1:{}", server.port)]);
    let context = RunContext::new().with_limits(allowed);
    let local = tool(
        json!({"kind": "endpoint", "url": server.url("/redirect/local"), "method": "get", "argumentLocation": "query"}),
    );
    assert_eq!(
        call(&local, json!({"q": 1}), &context).await,
        Output::text("GET /echo/after ")
    );
    let away = tool(
        json!({"kind": "endpoint", "url": server.url("/redirect/away"), "method": "get", "argumentLocation": "query"}),
    );
    assert_eq!(
        call(&away, json!({}), &context).await,
        Output::error("tool \"t\": the host \"localhost\" is not in the allowed hosts")
    );
    assert!(
        server
            .seen()
            .iter()
            .all(|seen| !seen.target.contains("/echo/away")),
        "the off-list host is never asked"
    );
    // 303 continues as a GET without the body.
    let post = tool(
        json!({"kind": "endpoint", "url": server.url("/redirect/see-other"), "method": "post", "argumentLocation": "body"}),
    );
    assert_eq!(
        call(&post, json!({"a": 1}), &context).await,
        Output::text("GET /echo/after ")
    );
    // The first URL is checked too.
    let other = RunContext::new().with_limits(RunLimits::default().with_allowed_hosts(["api.example.com"]));
    assert_eq!(
        call(&local, json!({}), &other).await,
        Output::error("tool \"t\": the host \"127.0.0.1\" is not in the allowed hosts")
    );
}

#[tokio::test]
async fn the_files_headers_are_not_sent_to_another_host() {
    let server = Server::start().await;
    let tool = tool(
        json!({"kind": "endpoint", "url": server.url("/redirect/away"), "method": "get",
        "argumentLocation": "query", "headers": {"X-Fixed": "secret"}}),
    );
    // No allowlist: the redirect to `localhost` (the same server under another name) is followed.
    assert_eq!(
        call(&tool, json!({}), &RunContext::new()).await,
        Output::text("GET /echo/away ")
    );
    let seen = server.seen();
    assert_eq!(seen[0].header("x-fixed"), Some("secret"));
    assert_eq!(seen[1].header("x-fixed"), None);
}

#[tokio::test]
async fn json_bodies_become_structured_content_and_a_fixed_result_replaces_the_body() {
    let server = Server::start().await;
    let mut tool = tool(
        json!({"kind": "endpoint", "url": server.url("/json"), "method": "get", "argumentLocation": "query"}),
    );
    tool.output_schema = Some(json!({"type": "object"}));
    let output = call(&tool, json!({}), &RunContext::new()).await;
    assert_eq!(
        output,
        Output::text(r#"{"temperature": 21.5}"#).with_structured(json!({"temperature": 21.5}))
    );
    tool.fixed_result = Some(json!("Done."));
    let output = call(&tool, json!({}), &RunContext::new()).await;
    assert_eq!(output.text.as_deref(), Some("Done."));
    assert_eq!(
        output.meta.unwrap()["dev.toolbridge/notes"][0]["message"],
        "the tool declares a fixed result; it replaces the response body (21 bytes)"
    );
}

#[tokio::test]
async fn unusable_urls_are_errors() {
    for (url, expected) in [
        (
            "ftp://x.test/",
            "tool \"t\": the URL scheme \"ftp\" is not http or https",
        ),
        (
            "not a url",
            "tool \"t\": the URL \"not a url\" is not valid: relative URL without a base",
        ),
    ] {
        let tool =
            tool(json!({"kind": "endpoint", "url": url, "method": "get", "argumentLocation": "query"}));
        assert_eq!(
            call(&tool, json!({}), &RunContext::new()).await,
            Output::error(expected)
        );
    }
    // A refused connection is an error result too.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let tool = tool(
        json!({"kind": "endpoint", "url": format!("http://127.0.0.1:{port}/"), "method": "get", "argumentLocation": "query"}),
    );
    let output = call(&tool, json!({}), &RunContext::new()).await;
    assert!(output.is_error);
    assert!(output.text.unwrap().starts_with(&format!(
        "tool \"t\": the request to http://127.0.0.1:{port}/ failed: "
    )));
}
