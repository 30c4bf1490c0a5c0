//! Reading another MCP server's tools as a client: a child process on
//! stdio or a streamable-HTTP URL, every `tools/list` page.

use std::process::Stdio;
use std::time::Duration;

use rmcp::model::PaginatedRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::Value;

/// The server to read tools from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A program started as a child process, spoken to on its stdin and
    /// stdout: the program, then its arguments (no shell is involved).
    Command(Vec<String>),
    /// A streamable-HTTP endpoint (`http://127.0.0.1:8000/mcp`).
    Url(String),
}

/// Bounds on reading a server's listing: a server is untrusted input.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ImportOptions {
    /// The whole exchange (start, handshake, every page) must end within this.
    pub timeout: Duration,
    /// At most this many `tools/list` pages are read.
    pub max_pages: usize,
    /// At most this many tools are kept.
    pub max_tools: usize,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            timeout: Duration::from_secs(30),
            max_pages: 1_000,
            max_tools: toolbridge::Limits::default().max_tools,
        }
    }
}

/// Why the tools could not be read.
#[derive(Debug)]
pub struct ImportError(String);

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ImportError {}

/// Connects to `source` (an `initialize` handshake, 2025-11-25), reads every
/// page of its `tools/list`, and returns the tools as MCP `Tool` JSON
/// objects in the server's order; the child process, if any, is stopped.
///
/// # Errors
///
/// When the server cannot be started or reached, does not answer the
/// handshake or a page, sends a cursor loop, or exceeds the bounds.
pub async fn list_tools(source: &Source, options: &ImportOptions) -> Result<Vec<Value>, ImportError> {
    let exchange = async {
        let client = connect(source).await?;
        let listed = read_pages(&client, options).await;
        let _ = client.cancel().await;
        listed
    };
    tokio::time::timeout(options.timeout, exchange)
        .await
        .unwrap_or_else(|_| {
            Err(ImportError(format!(
                "{} did not list its tools within {} s",
                describe(source),
                options.timeout.as_secs_f64()
            )))
        })
}

async fn connect(source: &Source) -> Result<RunningService<RoleClient, ()>, ImportError> {
    let failed =
        |err: &dyn std::fmt::Display| ImportError(format!("cannot connect to {}: {err}", describe(source)));
    match source {
        Source::Command(argv) => {
            let Some((program, args)) = argv.split_first() else {
                return Err(ImportError("no command to start".into()));
            };
            let mut command = tokio::process::Command::new(program);
            command.args(args).kill_on_drop(true);
            let (transport, _) = TokioChildProcess::builder(command)
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|err| ImportError(format!("cannot start {program:?}: {err}")))?;
            ().serve(transport).await.map_err(|err| failed(&err))
        }
        Source::Url(url) => {
            let http = crate::run::RunContext::http_client();
            let transport = StreamableHttpClientTransport::with_client(
                http,
                StreamableHttpClientTransportConfig::with_uri(url.as_str()),
            );
            ().serve(transport).await.map_err(|err| failed(&err))
        }
    }
}

async fn read_pages(
    client: &RunningService<RoleClient, ()>,
    options: &ImportOptions,
) -> Result<Vec<Value>, ImportError> {
    let mut tools = Vec::new();
    let mut cursor = None;
    let mut seen = std::collections::HashSet::new();
    for _ in 0..options.max_pages {
        let params = cursor
            .take()
            .map(|cursor| PaginatedRequestParams::default().with_cursor(Some(cursor)));
        let page = client
            .list_tools(params)
            .await
            .map_err(|err| ImportError(format!("tools/list failed: {err}")))?;
        for tool in page.tools {
            if tools.len() >= options.max_tools {
                return Err(ImportError(format!(
                    "the server lists more than {} tools",
                    options.max_tools
                )));
            }
            tools.push(serde_json::to_value(tool).map_err(|err| ImportError(err.to_string()))?);
        }
        match page.next_cursor {
            None => return Ok(tools),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(ImportError(format!(
                    "the server sent the cursor {next:?} twice (a loop)"
                )));
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(ImportError(format!(
        "the server's listing has more than {} pages",
        options.max_pages
    )))
}

fn describe(source: &Source) -> String {
    match source {
        Source::Command(argv) => format!("the server started as {:?}", argv.join(" ")),
        Source::Url(url) => url.clone(),
    }
}

/// Splits a command line into words without a shell: whitespace separates
/// words; single quotes keep everything literally; double quotes keep
/// whitespace and take `\"` and `\\`; a backslash outside quotes escapes
/// the next character. No variables, globs or redirections.
///
/// # Errors
///
/// An unclosed quote or a trailing backslash.
pub fn split_command(line: &str) -> Result<Vec<String>, ImportError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(ImportError("unclosed ' in the command".into())),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(ImportError("unclosed \" in the command".into())),
                        },
                        Some(c) => word.push(c),
                        None => return Err(ImportError("unclosed \" in the command".into())),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                None => return Err(ImportError("the command ends with a lone \\".into())),
            },
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_like_a_shell_without_one() {
        let cases: &[(&str, &[&str])] = &[
            ("npx -y @scope/server", &["npx", "-y", "@scope/server"]),
            ("  python3   'my server.py'  ", &["python3", "my server.py"]),
            (r#"run "a \"b\" c" d\ e ''"#, &["run", r#"a "b" c"#, "d e", ""]),
            (r#"echo "back\slash" $HOME"#, &["echo", r"back\slash", "$HOME"]),
            ("", &[]),
        ];
        for (line, words) in cases {
            assert_eq!(split_command(line).unwrap(), *words, "{line}");
        }
        for bad in ["'open", "\"open", "trailing\\"] {
            assert!(split_command(bad).is_err(), "{bad}");
        }
        assert_eq!(
            split_command("'open").unwrap_err().to_string(),
            "unclosed ' in the command"
        );
    }
}
