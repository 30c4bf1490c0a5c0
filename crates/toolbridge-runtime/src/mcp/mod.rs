//! MCP serving and import over rmcp — the one module of the project that
//! uses rmcp.
//!
//! [`Server`] serves a folder of tool files: `tools/list` in name order
//! (annotations, titles, icons, output schemas, `ttlMs`, never how a tool
//! runs), `tools/call` through the Toolbox and the `run` kinds, a reload
//! with `notifications/tools/list_changed` when the files change, over
//! stdio ([`Server::serve_stdio`]) or streamable HTTP at `/mcp`
//! ([`Server::bind_http`]), speaking 2025-11-25 (with `initialize`) and the
//! stateless 2026-07-28 revision. [`list_tools`] reads another server's
//! tools as a client, for `toolbridge import`.

mod catalog;
mod client;
mod confirm;
mod http;
mod server;
mod sessions;

pub use catalog::{Problem, Severity};
pub use client::{list_tools, split_command, ImportError, ImportOptions, Source};
pub use http::{HttpServer, PATH};
pub use server::{ConfirmPolicy, ServeOptions, Server};
