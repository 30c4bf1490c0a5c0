//! Command-line arguments: one definition per flag, its doc comment is its help.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Define an LLM tool once; convert it to every provider's and ecosystem's format.
///
/// Exit status: 0 when everything worked, 1 when some tool could not be
/// converted or notes reached the `--deny` level (lint: any error-level note),
/// 2 on an error such as unreadable input or an unknown format.
#[derive(Debug, Parser)]
#[command(name = "toolbridge", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Convert tool definitions from one format to another.
    ///
    /// Reads every FILE (a directory reads each tool file in it; `-` reads
    /// stdin), detects the format of each from its shape unless `--from` is
    /// given, and writes all tools in the `--to` format: one tool comes out as
    /// the target's tool entry, several as the list a request's `tools` field
    /// holds. Each tool is converted on its own: one bad tool is reported and
    /// the rest still come out (exit status 1). Every change or loss is noted
    /// on stderr.
    ///
    /// Example: toolbridge convert examples/tools --to all -o out/
    #[command(
        after_long_help = "Examples:\n  toolbridge convert weather.json --to gemini\n  toolbridge convert tools/ --to openai --strict -o openai-tools.json\n  cat mcp-tools.json | toolbridge convert - --to anthropic\n  toolbridge convert examples/tools --to all -o out/"
    )]
    Convert(ConvertArgs),
    /// Show, for each target format, what converting the tools would change or lose.
    ///
    /// Prints one line per note: FILE: TOOL: FORMAT: LEVEL: MESSAGE (at POINTER).
    /// Exits 1 when any note is at error level (the provider would reject the
    /// output, e.g. a description over 1024 characters for OpenAI) or at the
    /// `--deny` level.
    ///
    /// Example: toolbridge lint tools/*.json --target openai,gemini --strict
    Lint(LintArgs),
    /// Print the tool calls in a model's whole response, any provider, or in
    /// an open-weight model's raw text (`--text`).
    ///
    /// Reads one response body (OpenAI Chat or Responses, Anthropic, Gemini,
    /// Bedrock Converse, Ollama, Mistral, Cohere v2) or an MCP `tools/call`
    /// request; the provider is detected from its shape unless `--provider`
    /// says. With `--tools`, names the tools were written under (sanitised
    /// for the provider) are mapped back to the tools' own names.
    ///
    /// With `--text`, reads a model's raw text in the markup of a family
    /// `--family` lists (Hermes/Qwen <tool_call>, Qwen3-Coder, GLM,
    /// Llama 3, Llama 4 pythonic, Mistral [TOOL_CALLS], DeepSeek, Kimi,
    /// gpt-oss Harmony, Gemma 4, Granite, MiniMax and more): prints one line
    /// per call, then the prose outside the calls; notes on stderr say what
    /// garbled markup was recovered. The family is
    /// detected unless `--family` names it; `--tools` types the values the
    /// markup leaves untyped and runs every call through the Toolbox
    /// (exit 1 when one is rejected).
    ///
    /// Example: toolbridge calls response.json --tools tools/ --json
    ///
    /// Example: toolbridge calls --text examples/text/qwen3_coder.txt --tools examples/tools/get_weather.json
    Calls(CallsArgs),
    /// Follow a captured SSE, NDJSON or AWS (Bedrock) event stream and print its tool-call events.
    ///
    /// Prints each call as it starts, each piece of its argument text, and
    /// the whole call when the provider ends it. A call whose arguments are
    /// not JSON finishes with the error and the raw text.
    ///
    /// Example: toolbridge stream examples/streams/openai.sse --json
    Stream(StreamArgs),
    /// Repair malformed tool-call argument JSON and say what was fixed.
    ///
    /// Prints the repaired JSON on stdout and a note per fix on stderr (code
    /// fences, prose around it, trailing commas, single quotes, Python
    /// literals, unescaped quotes in strings, truncation, …). Text whose
    /// meaning is not clear is refused with the place and the reason (exit 1).
    ///
    /// Example: toolbridge repair --lines captured-arguments.jsonl
    Repair(RepairArgs),
    /// Check the tool calls in a response against the tools: accepted or rejected.
    ///
    /// Detects the provider of a whole response (or takes `--provider`),
    /// writes the `--tools` for it to learn the names and rewrites the calls
    /// come back under, and runs every call through the Toolbox: name,
    /// arguments restored to the canonical shape, defaults, coercion,
    /// validation. Prints each accepted call with its arguments, and each
    /// rejected one with the message written for the model. Exit status 1
    /// when any call is rejected.
    ///
    /// Example: toolbridge check --tools examples/check/tools.json examples/responses/anthropic.json
    Check(CheckArgs),
    /// The same as `calls --text` (kept for scripts written before it).
    #[command(hide = true)]
    Text(TextArgs),
    /// Run one tool of a tool file: the call goes through the Toolbox (as
    /// `check`), then the tool's `run` (endpoint, command, prompt or context).
    ///
    /// Prints the result's text (its notes and `_meta` on stderr), or with
    /// `--json` the whole result. Exit 1 when the call is rejected or the
    /// tool fails, 2 when the file or the arguments cannot be used. A
    /// relative command runs from the tool file's folder.
    ///
    /// Examples:
    ///   toolbridge call examples/tools/run/review_prompt.json review_code --args '{"language": "Rust", "code": "fn main() {}"}'
    ///   toolbridge call examples/tools/run/word_count.json word_count --args '{"text": "one two"}' --json
    Call(crate::cmd::call::CallArgs),
    /// Serve a folder of tool files as an MCP server (stdio, or streamable HTTP at /mcp).
    ///
    /// Reads every tool file under DIR (sub-folders too) and serves the tools
    /// whose `run` says how they execute (endpoint, command, prompt,
    /// context): `tools/list` in name order, never showing how a tool runs;
    /// `tools/call` checked by the Toolbox first, a rejected call answered
    /// as an error result the model can act on. Tools with `run.kind =
    /// action` are left out, with a warning. Files that change are read
    /// again and clients are told the list changed; a bad file is reported
    /// on stderr and the rest keep serving. Speaks MCP 2025-11-25 (with
    /// `initialize`) and the stateless 2026-07-28 revision.
    ///
    /// Example: toolbridge serve examples/tools --http 127.0.0.1:8000
    #[command(
        after_long_help = "Examples:\n  toolbridge serve examples/tools\n  toolbridge serve tools/ --http 127.0.0.1:8000\n  toolbridge serve tools/ --http 0.0.0.0:8000 --stateless --any-host --confirm allow\n\nAn MCP client's configuration (Claude Desktop, VS Code) runs it on stdio:\n  {\"command\": \"toolbridge\", \"args\": [\"serve\", \"/path/to/tools\"]}"
    )]
    Serve(ServeArgs),
    /// Read the tools of an MCP server and write them in any format.
    ///
    /// Starts the server (`--mcp`, split into words without a shell: quotes
    /// and backslashes group words, nothing else is interpreted) or connects
    /// to it (`--mcp-url`), reads every page of `tools/list`, and writes the
    /// tools as `convert` does, with the same notes.
    ///
    /// Example: toolbridge import --mcp "npx -y @modelcontextprotocol/server-everything" --to gptel
    #[command(
        after_long_help = "Examples:\n  toolbridge import --mcp \"python3 server.py\" --to ellmer\n  toolbridge import --mcp-url http://127.0.0.1:8000/mcp --to gemini -o tools.json\n  toolbridge import --mcp \"toolbridge serve examples/tools\" --to gptel"
    )]
    Import(ImportArgs),
    /// List the supported formats.
    Formats(FormatsArgs),
    /// Print the JSON Schema of the toolbridge tool file.
    Schema,
}

#[derive(Debug, Args)]
pub struct InputArgs {
    /// Tool files or directories to read; `-` (or none, with a document piped
    /// in) reads standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Read the input as this format instead of detecting it; `defun` reads
    /// Emacs Lisp `defun` / `cl-defun` forms as tools (name from the symbol,
    /// description from the docstring, parameters from the lambda list).
    #[arg(long, value_name = "FORMAT")]
    pub from: Option<String>,
    /// Keep only the tool named NAME (with `--from defun`: the function
    /// whose symbol is NAME, the only one read).
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
}

impl InputArgs {
    /// `files`, each format detected, every tool kept.
    pub fn files(files: Vec<PathBuf>) -> InputArgs {
        InputArgs {
            files,
            from: None,
            only: None,
        }
    }
}

#[derive(Debug, Args)]
pub struct NoteArgs {
    /// How to print notes on stderr: text, json (one JSON object per line) or none.
    #[arg(long, value_enum, default_value_t = NotesStyle::Text, value_name = "STYLE")]
    pub notes: NotesStyle,
    /// Exit 1 when any note is at this level or above: change, loss or error.
    #[arg(long, value_name = "LEVEL")]
    pub deny: Option<String>,
}

#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub write: WriteArgs,
}

/// How tools are written: `convert` and `import`.
#[derive(Debug, Args)]
pub struct WriteArgs {
    /// The format to write, or `all` for one file per format (needs -o DIR).
    #[arg(long, short = 't', value_name = "FORMAT")]
    pub to: String,
    /// Ask for the target's strict mode (OpenAI Structured Outputs, Anthropic strict tools, …).
    #[arg(long)]
    pub strict: bool,
    /// Write absent MCP annotation hints with MCP's defaults.
    #[arg(long)]
    pub annotation_defaults: bool,
    /// Write the target's list even for a single tool (one tool entry, a server with one tool).
    #[arg(long)]
    pub list: bool,
    /// Write to this file (with `--to all`: this directory) instead of stdout.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub notes: NoteArgs,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Comma-separated target formats (default: every format).
    #[arg(long, value_delimiter = ',', value_name = "FORMATS")]
    pub target: Vec<String>,
    /// Lint as if converting with --strict.
    #[arg(long)]
    pub strict: bool,
    /// Show notes at this level and above: info, change, loss or error.
    #[arg(long, default_value = "change", value_name = "LEVEL")]
    pub show: String,
    /// Exit 1 when any note is at this level or above (error-level notes always do).
    #[arg(long, value_name = "LEVEL")]
    pub deny: Option<String>,
    /// Print notes as JSON lines instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct CallsArgs {
    /// The response body to read; `-` (or none, with a document piped in)
    /// reads standard input.
    #[arg(value_name = "RESPONSE")]
    pub response: Option<PathBuf>,
    /// The provider that sent the response (detected from its shape when absent).
    #[arg(long, value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// The tool files the calls are for: names are mapped back through them.
    #[arg(long, value_name = "FILE")]
    pub tools: Vec<PathBuf>,
    /// Print one JSON object per call: {"id", "name", "arguments"} (or "error" and "raw").
    #[arg(long)]
    pub json: bool,
    /// Read every choice of an OpenAI Chat response (n > 1), not only the
    /// first: each call says its choice ("choice" with --json, `#n` otherwise).
    #[arg(long, conflicts_with = "text")]
    pub all_choices: bool,
    /// The input is an open-weight model's raw text, not a provider's response.
    #[arg(long, conflicts_with = "provider")]
    pub text: bool,
    /// With --text: the model family whose markup the text is in: auto,
    /// deepseek-dsml, deepseek, step3, kimi, kimi-k3, harmony, inkling,
    /// muse-glimmer, gemma4, function-gemma, minimax-m3, minimax, dots,
    /// minicpm5, seed-oss, command-r7b, hunyuan, longcat, internlm,
    /// gigachat, apertus, lfm2, olmo3, mistral, granite, granite-20b-fc,
    /// qwen3-coder, glm, hermes, phi4-mini, llama3, pythonic or xlam.
    #[arg(long, value_name = "FAMILY", default_value = "auto", requires = "text")]
    pub family: String,
}

#[derive(Debug, Args)]
pub struct StreamArgs {
    /// The captured stream to read; `-` (or none, with a stream piped in)
    /// reads standard input as it arrives.
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The provider that sent the stream (detected from its first events when absent).
    #[arg(long, value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// The tool files the calls are for: names are mapped back through them.
    #[arg(long, value_name = "FILE")]
    pub tools: Vec<PathBuf>,
    /// Read every choice of an OpenAI Chat stream (n > 1), not only the
    /// first: each choice's calls are kept apart and say their choice.
    #[arg(long, conflicts_with = "deltas")]
    pub all_choices: bool,
    /// Print one JSON object per event: {"event": "started" | "delta" |
    /// "replaced" | "plan" | "text" | "finished", …}; a delta carries the changes its text made
    /// to the partial arguments ({"at": pointer, "set": value | "append": text}).
    #[arg(long)]
    pub json: bool,
    /// The input is the argument text of one call in pieces, one JSON string
    /// per line, without a provider envelope: feeds the partial parser.
    #[arg(long)]
    pub deltas: bool,
    /// With --deltas: after each delta print what changed (`changes`) or the
    /// whole partial value (`full`).
    #[arg(long, value_enum, num_args = 0..=1, require_equals = true, default_missing_value = "changes", requires = "deltas")]
    pub partial: Option<PartialStyle>,
    /// The input is an open-weight model's raw text as it arrives (see
    /// `calls --text`): prose is printed as "text" events, calls as they start,
    /// grow and finish.
    #[arg(long, conflicts_with_all = ["provider", "deltas", "all_choices"])]
    pub text: bool,
    /// With --text: the model family (auto: decided at its first markup).
    #[arg(long, value_name = "FAMILY", default_value = "auto", requires = "text")]
    pub family: String,
    /// With --text: the argument deltas carry their text alone, without the
    /// changes to the partial arguments (a quarter cheaper; the calls are the
    /// same).
    #[arg(long, requires = "text")]
    pub no_changes: bool,
    /// With --deltas: print only one JSON summary line at the end:
    /// {"deltas", "bytes", "changes", "value_bytes", "parse_us"}.
    #[arg(long, requires = "deltas", conflicts_with = "partial")]
    pub stats: bool,
}

/// What `stream --deltas --partial` prints after each delta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PartialStyle {
    /// What changed: the pointer and the appended text or completed value.
    Changes,
    /// The whole partial value.
    Full,
}

#[derive(Debug, Args)]
pub struct RepairArgs {
    /// The text to repair; `-` (or none, with text piped in) reads standard input.
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Repair each line on its own (a JSON string holding the raw text, or
    /// the raw text) and print one JSON result per line: {"value", "notes"}
    /// or {"error"}.
    #[arg(long)]
    pub lines: bool,
    /// A JSON Schema the value should fit: "5" becomes 5 where it says
    /// integer, a lone value becomes a list where it says array, enum case
    /// is fixed.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The response body to check; `-` (or none, with a document piped in)
    /// reads standard input.
    #[arg(value_name = "RESPONSE", conflicts_with = "args")]
    pub response: Option<PathBuf>,
    /// The tool files the calls are for.
    #[arg(long, value_name = "FILE", required = true)]
    pub tools: Vec<PathBuf>,
    /// The provider that sent the response (detected from its shape when absent).
    #[arg(long, value_name = "PROVIDER")]
    pub provider: Option<String>,
    /// Check one call's arguments (a JSON object) instead of a response; needs --name.
    #[arg(long, value_name = "JSON", requires = "name")]
    pub args: Option<String>,
    /// The tool the --args call names.
    #[arg(long, value_name = "NAME", requires = "args")]
    pub name: Option<String>,
    /// Print one JSON object per call: {"id", "name", "arguments", "notes"}
    /// when accepted, {"id", "name", "rejection", "violations"} when not.
    #[arg(long)]
    pub json: bool,
    /// Print instead the tool results to send back for the rejected calls,
    /// in the provider's shape, one JSON document per line.
    #[arg(long)]
    pub reply: bool,
    /// Leave arguments that do not fit as they are ("5" for an integer is
    /// rejected, not read as 5).
    #[arg(long)]
    pub no_coerce: bool,
    /// Print each accepted call as the value its handler receives in another
    /// language: `elisp` (gptel's plist), `llm` (llm.el's alist), `r`
    /// (ellmer's list); rejected calls print as without it.
    #[arg(long = "as", value_name = "LANGUAGE", value_parser = ["elisp", "llm", "r"], conflicts_with_all = ["json", "reply"])]
    pub native: Option<String>,
}

#[derive(Debug, Args)]
pub struct TextArgs {
    /// The model's text; `-` (or none, with text piped in) reads standard input.
    #[arg(value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The model family whose markup the text is in: auto, deepseek-dsml,
    /// deepseek, step3, kimi, kimi-k3, harmony, inkling, muse-glimmer,
    /// gemma4, function-gemma, minimax-m3, minimax, dots, minicpm5, seed-oss,
    /// command-r7b, hunyuan, longcat, internlm, gigachat, apertus, lfm2,
    /// olmo3, mistral, granite, granite-20b-fc, qwen3-coder, glm, hermes,
    /// phi4-mini, llama3, pythonic or xlam.
    #[arg(long, value_name = "FAMILY", default_value = "auto")]
    pub family: String,
    /// Tool files whose schemas type the values and fit the arguments.
    #[arg(long, value_name = "FILE")]
    pub tools: Vec<PathBuf>,
    /// Print one JSON object per call, {"id", "name", "arguments"} (or
    /// "error" and "raw"), then {"content": prose}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FormatsArgs {
    /// Print the table as Markdown (the README's format table).
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// Print the formats as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The folder of tool files to serve.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (port 0 picks a free port).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// Tools marked `confirm`: ask the client's user (elicitation; refused when
    /// the client cannot ask), or allow every call.
    #[arg(long, value_enum, default_value_t = ConfirmArg::Ask, value_name = "POLICY")]
    pub confirm: ConfirmArg,
    /// Calls running at once; more wait for their turn.
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub max_calls: usize,
    /// Seconds one call may take, waiting and confirmation included.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    pub timeout: f64,
    /// The largest HTTP request body, in bytes.
    #[arg(long, default_value_t = 4 * 1024 * 1024, value_name = "BYTES")]
    pub max_body: usize,
    /// Seconds a client may keep the tool list (`ttlMs`).
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub ttl: f64,
    /// Tools per `tools/list` page.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub page_size: usize,
    /// Do not watch the files for changes.
    #[arg(long)]
    pub no_reload: bool,
    /// HTTP: no sessions for 2025-11-25 clients either, so replicas behind a
    /// load balancer share nothing (those clients then hear of no list changes).
    #[arg(long, requires = "http")]
    pub stateless: bool,
    /// HTTP: keep at most N sessions at once; past it `initialize` is refused
    /// with 503 and `Retry-After` (an idle session ends after five minutes).
    #[arg(long, default_value_t = 1024, value_name = "N", requires = "http")]
    pub max_sessions: usize,
    /// HTTP: also accept this Host (besides localhost); repeat for more.
    #[arg(long, value_name = "HOST", requires = "http")]
    pub allow_host: Vec<String>,
    /// HTTP: accept any Host header (behind a proxy or load balancer).
    #[arg(long, requires = "http", conflicts_with = "allow_host")]
    pub any_host: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ConfirmArg {
    Ask,
    Allow,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("server").required(true).args(["mcp", "mcp_url"])))]
pub struct ImportArgs {
    /// The MCP server to start, as one string: "PROGRAM ARGS…" (no shell).
    #[arg(long, value_name = "COMMAND")]
    pub mcp: Option<String>,
    /// The streamable-HTTP URL of a running MCP server.
    #[arg(long, value_name = "URL")]
    pub mcp_url: Option<String>,
    /// Seconds the whole exchange with the server may take.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub timeout: f64,
    #[command(flatten)]
    pub write: WriteArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum NotesStyle {
    Text,
    Json,
    None,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn convert_without_files_leaves_the_choice_of_stdin_to_input() {
        let cli = Cli::try_parse_from(["toolbridge", "convert", "--to", "openai"]).unwrap();
        let Command::Convert(args) = cli.command else {
            panic!("not convert")
        };
        assert!(args.input.files.is_empty());
        assert!(!args.write.list);
        assert_eq!(args.write.to, "openai");
        assert_eq!(args.write.notes.notes, NotesStyle::Text);
    }

    #[test]
    fn serve_and_import_take_their_flags() {
        let cli = Cli::try_parse_from([
            "toolbridge",
            "serve",
            "tools",
            "--http",
            "127.0.0.1:0",
            "--stateless",
        ])
        .unwrap();
        let Command::Serve(args) = cli.command else {
            panic!("not serve")
        };
        assert_eq!(
            (args.http.unwrap().port(), args.stateless, args.confirm),
            (0, true, ConfirmArg::Ask)
        );
        assert!(Cli::try_parse_from(["toolbridge", "serve", "tools", "--stateless"]).is_err());
        assert!(Cli::try_parse_from(["toolbridge", "import", "--to", "openai"]).is_err());
        let cli =
            Cli::try_parse_from(["toolbridge", "import", "--mcp", "python3 s.py", "--to", "gptel"]).unwrap();
        let Command::Import(args) = cli.command else {
            panic!("not import")
        };
        assert_eq!(
            (args.mcp.as_deref(), args.write.to.as_str()),
            (Some("python3 s.py"), "gptel")
        );
    }

    #[test]
    fn lint_targets_split_on_commas() {
        let cli = Cli::try_parse_from(["toolbridge", "lint", "a.json", "--target", "openai,gemini"]).unwrap();
        let Command::Lint(args) = cli.command else {
            panic!("not lint")
        };
        assert_eq!(args.target, ["openai", "gemini"]);
        assert_eq!(args.show, "change");
    }
}
