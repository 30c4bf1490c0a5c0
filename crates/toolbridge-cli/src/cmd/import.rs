//! `toolbridge import`: another MCP server's tools, in any format.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::json;
use toolbridge::{Format, ReadOptions};
use toolbridge_runtime::mcp::{self, ImportOptions, Source};

use crate::cli::ImportArgs;

pub fn run(args: &ImportArgs) -> Result<ExitCode> {
    let plan = super::write::plan(&args.write)?;
    let (source, origin) = match (&args.mcp, &args.mcp_url) {
        (Some(command), _) => {
            let argv = mcp::split_command(command)?;
            if argv.is_empty() {
                bail!("--mcp names no program");
            }
            (Source::Command(argv), command.clone())
        }
        (None, Some(url)) => (Source::Url(url.clone()), url.clone()),
        (None, None) => unreachable!("clap requires one of --mcp and --mcp-url"),
    };
    let mut options = ImportOptions::default();
    options.timeout = super::serve::seconds("--timeout", args.timeout)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let listed = runtime.block_on(mcp::list_tools(&source, &options));
    // Stop the child server now, before writing (the runtime owns it), and
    // do not wait long for one that does not stop: a server that timed out
    // may be blocked anywhere.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    let tools = listed?;
    let read_options = ReadOptions::default().with_from(Format::Mcp).with_origin(origin);
    let read = toolbridge::read_value(&json!({ "tools": tools }), &read_options)
        .context("the server's tools/list could not be read")?;
    let denied = super::write::write(&args.write, plan, &[read])?;
    Ok(super::exit_code(false, denied))
}
