//! `serve --http` on 127.0.0.1: the number of sessions kept is bounded.

use std::time::Duration;

use serde_json::{json, Value};
use toolbridge_runtime::mcp::{ServeOptions, Server};

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

#[tokio::test]
async fn past_max_sessions_initialize_is_refused_naming_the_limit() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp/tools");
    let mut options = ServeOptions::default();
    options.max_sessions = 1;
    options.poll_interval = None;
    let server = Server::new(dir, options).on_reload_problem(|_| {});
    let http = server.bind_http("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let url = format!("http://{}/mcp", http.local_addr().unwrap());
    let serving = tokio::spawn(http.run());
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let post = || {
        client
            .post(&url)
            .header("accept", "application/json, text/event-stream")
            .json(&initialize())
    };
    let first = post().send().await.unwrap();
    assert_eq!(first.status(), 200);
    let id = first.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let second = post().send().await.unwrap();
    // A full server is unavailable, not broken: 503, and when to retry.
    assert_eq!(second.status(), 503);
    assert_eq!(second.headers()["retry-after"], "5");
    assert_eq!(
        second.text().await.unwrap(),
        "Encounter an error when create session: the server keeps at most 1 sessions (max_sessions, \
         `serve --max-sessions`); close one (HTTP DELETE) or retry when an idle one has ended"
    );
    // Closing the first makes room.
    let closed = client
        .delete(&url)
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    let third = post().send().await.unwrap();
    assert_eq!(third.status(), 200);
    serving.abort();
}
