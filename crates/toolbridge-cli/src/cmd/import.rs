//! `toolbridge import`: another MCP server's tools, in any format.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde_json::json;
use toolbridge::{Format, ReadOptions, WriteOptions};
use toolbridge_runtime::mcp::{self, ImportOptions, Source};

use crate::cli::ImportArgs;
use crate::output;

pub fn run(args: &ImportArgs) -> Result<ExitCode> {
    let targets: Vec<Format> = if args.to.eq_ignore_ascii_case("all") {
        Format::all().collect()
    } else {
        vec![Format::from_id(&args.to)?]
    };
    let all = targets.len() > 1;
    if all && args.output.is_none() {
        bail!("--to all writes one file per format: give a directory with -o DIR");
    }
    let deny = args.notes.deny.as_deref().map(output::parse_level).transpose()?;
    let style = args.notes.notes;
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
    let reads = [read];
    let options = WriteOptions::default()
        .with_strict(args.strict)
        .with_annotation_defaults(args.annotation_defaults)
        .with_list(args.list);
    let mut denied = false;
    for (index, format) in targets.into_iter().enumerate() {
        let conversion = toolbridge::convert_read(&reads, format, &options);
        let findings = conversion
            .findings
            .iter()
            .filter(|finding| index == 0 || finding.place.format.is_some());
        for finding in findings {
            denied |= finding.is_denied(deny);
            output::print_finding(style, finding)?;
        }
        let path = if all {
            let dir = args.output.as_ref().expect("checked above");
            Some(dir.join(format!("{}.{}", format.id(), format.info().extension)))
        } else {
            args.output.clone()
        };
        output::emit(path.as_deref(), &conversion.text).context("cannot write the output")?;
    }
    Ok(super::exit_code(false, denied))
}
