//! `toolbridge formats`.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;
use toolbridge::FORMATS;

use crate::cli::FormatsArgs;
use crate::output;

pub fn run(args: &FormatsArgs) -> Result<ExitCode> {
    let text = if args.json {
        let list: Vec<_> = FORMATS
            .iter()
            .map(|info| {
                json!({"id": info.id, "aliases": info.aliases, "extension": info.extension,
                    "read": true, "write": true, "summary": info.summary})
            })
            .collect();
        format!("{}\n", serde_json::to_string_pretty(&list)?)
    } else if args.markdown {
        markdown_table()
    } else {
        plain_table()
    };
    output::emit(None, &text)?;
    Ok(ExitCode::SUCCESS)
}

/// The README's format table.
pub fn markdown_table() -> String {
    let mut text = String::from("| id | reads and writes | file |\n| --- | --- | --- |\n");
    for info in FORMATS {
        text.push_str(&format!(
            "| `{}` | {} | `.{}` |\n",
            info.id, info.summary, info.extension
        ));
    }
    text
}

fn plain_table() -> String {
    let width = FORMATS.iter().map(|info| info.id.len()).max().unwrap_or(0);
    FORMATS
        .iter()
        .map(|info| {
            format!(
                "{:width$}  read/write  .{:<4}  {}\n",
                info.id, info.extension, info.summary
            )
        })
        .collect()
}
