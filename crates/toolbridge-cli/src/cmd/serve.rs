//! `toolbridge serve`: a folder of tool files as an MCP server.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use toolbridge_runtime::mcp::{ConfirmPolicy, ServeOptions, Server};

use crate::cli::{ConfirmArg, ServeArgs};

pub fn run(args: &ServeArgs) -> Result<ExitCode> {
    if !args.dir.is_dir() {
        bail!("{} is not a folder of tool files", args.dir.display());
    }
    let mut options = ServeOptions::default();
    options.confirm = match args.confirm {
        ConfirmArg::Ask => ConfirmPolicy::Ask,
        ConfirmArg::Allow => ConfirmPolicy::Allow,
    };
    options.max_concurrent_calls = args.max_calls.max(1);
    options.call_timeout = seconds("--timeout", args.timeout)?;
    options.list_ttl = seconds("--ttl", args.ttl)?;
    options.max_request_bytes = args.max_body;
    options.sessions = !args.stateless;
    options.max_sessions = args.max_sessions.max(1);
    options.page_size = args.page_size.max(1);
    if args.no_reload {
        options.poll_interval = None;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let server = Server::new(&args.dir, options);
        for problem in server.problems() {
            eprintln!("{problem}");
        }
        let names = server.tool_names();
        eprintln!(
            "toolbridge serve: {} tool{} from {}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            args.dir.display()
        );
        match args.http {
            None => server.serve_stdio().await.context("the stdio connection failed"),
            Some(addr) => {
                let mut http = server
                    .bind_http(addr)
                    .await
                    .with_context(|| format!("cannot listen on {addr}"))?;
                if args.any_host {
                    http = http.with_allowed_hosts(Vec::new());
                } else if !args.allow_host.is_empty() {
                    http = http.with_allowed_hosts(args.allow_host.clone());
                }
                eprintln!("toolbridge serve: listening on http://{}/mcp", http.local_addr()?);
                http.run().await.context("the HTTP server stopped")
            }
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// A flag's seconds as a duration (positive, finite).
pub fn seconds(flag: &str, value: f64) -> Result<Duration> {
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if !duration.is_zero() => Ok(duration),
        _ => bail!("{flag} takes a positive number of seconds, not {value}"),
    }
}
