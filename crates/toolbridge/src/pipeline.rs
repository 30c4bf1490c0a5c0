//! The front door: read a document into tools, write tools in a format.

use std::fmt;

use serde_json::Value;

use crate::codec::{Codec, JsonCodec, ReadTools};
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared;
use crate::json::{self, Entry};
use crate::note::{Converted, Level, Note, NoteKind, Notes};
use crate::options::{Format, Output, ReadOptions, Shape, WriteOptions};
use crate::pointer::Pointer;
use crate::registry::{detect, detect_text};
use crate::rewrite::Inverse;
#[cfg(test)]
use crate::rewrite::Rewrite;
use crate::schema::names::NameMap;
use crate::tool::Tool;

/// What reading a document produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct Read {
    /// The format read (given or detected).
    pub format: Format,
    /// One tool or a list.
    pub shape: Shape,
    /// Each tool with its notes, or the error that stopped that tool alone.
    pub tools: Vec<Result<Converted<Tool>>>,
    /// Notes about the document as a whole (how its format was detected,
    /// list elements that are not tools).
    pub notes: Vec<Note>,
    /// The input's name, from [`ReadOptions::origin`].
    pub origin: Option<String>,
}

impl Read {
    /// Every tool with every note (the document's first), or the first
    /// tool's error if any tool could not be read.
    ///
    /// ```
    /// let read = toolbridge::read(r#"{"name": "ping", "inputSchema": {"type": "object"}}"#,
    ///     &toolbridge::ReadOptions::default())?;
    /// let tools = read.into_converted()?;
    /// assert_eq!((tools.value[0].name.as_str(), tools.notes.len()), ("ping", 0));
    /// # Ok::<(), toolbridge::Error>(())
    /// ```
    pub fn into_converted(self) -> Result<Converted<Vec<Tool>>> {
        let mut notes = self.notes;
        let mut tools = Vec::with_capacity(self.tools.len());
        for tool in self.tools {
            let tool = tool?;
            notes.extend(tool.notes);
            tools.push(tool.value);
        }
        Ok(Converted { value: tools, notes })
    }

    /// Reads tools from Emacs Lisp `defun` / `cl-defun` forms (seed 001's
    /// `json-schema-from-defun`, see [`read_defuns`](crate::read_defuns)),
    /// or only the function whose symbol is `only`; the tools count as
    /// read from [`Format::Gptel`], their symbol kept as the gptel
    /// `:function`.
    ///
    /// # Errors
    ///
    /// As [`read_defuns`](crate::read_defuns), with the options' origin.
    pub fn from_defuns(text: &str, only: Option<&str>, opts: &ReadOptions) -> Result<Read> {
        let (tools, notes) = crate::format::elisp::defun::read_defun_tools(text, only, &opts.limits)
            .map_err(|err| match &opts.origin {
                Some(origin) => err.with_origin(origin.clone()),
                None => err,
            })?;
        let shape = if tools.len() == 1 {
            Shape::Single
        } else {
            Shape::List
        };
        Ok(Read {
            format: Format::Gptel,
            shape,
            tools: tools.into_iter().map(Ok).collect(),
            notes,
            origin: opts.origin.clone(),
        })
    }

    /// The tools that were read without error.
    pub fn ok_tools(&self) -> impl Iterator<Item = &Tool> {
        self.tools
            .iter()
            .filter_map(|tool| tool.as_ref().ok().map(|c| &c.value))
    }

    /// Every note and every failed tool, each with its place: the
    /// document's notes, then each tool's notes or error, in input order.
    pub fn findings(&self) -> Vec<Finding> {
        let place = |tool: Option<&str>| Place {
            origin: self.origin.clone(),
            tool: tool.map(str::to_string),
            format: None,
        };
        let mut findings: Vec<Finding> = self
            .notes
            .iter()
            .map(|note| place(None).note(note.clone()))
            .collect();
        for tool in &self.tools {
            match tool {
                Ok(converted) => findings.extend(
                    converted
                        .notes
                        .iter()
                        .map(|note| place(Some(&converted.value.name)).note(note.clone())),
                ),
                Err(err) => findings.push(place(None).error(err.clone())),
            }
        }
        findings
    }
}

/// Keeps only the tool named `name` (its canonical name) in `reads`: what
/// `--only NAME` asks for. The other tools, read or not, are left out on
/// purpose, so they get no note.
///
/// # Errors
///
/// [`ErrorKind::NotATool`] when no read holds a tool named `name`, naming
/// the closest name and the tools that were read.
pub fn keep_only(reads: &mut [Read], name: &str) -> Result<()> {
    let found = reads
        .iter()
        .any(|read| read.ok_tools().any(|tool| tool.name == name));
    if !found {
        let names: Vec<&str> = reads
            .iter()
            .flat_map(|read| read.ok_tools().map(|tool| tool.name.as_str()))
            .collect();
        let mut detail = format!("no tool is named `{name}`");
        if let Some(closest) = crate::suggest::closest(name, names.iter().copied()) {
            detail.push_str(&format!(" (did you mean `{closest}`?)"));
        }
        if names.is_empty() {
            detail.push_str("; no tool was read");
        } else {
            let listed: Vec<String> = names.iter().take(20).map(|name| format!("`{name}`")).collect();
            let more = names.len().saturating_sub(20);
            detail.push_str(&format!("; the tools are {}", listed.join(", ")));
            if more > 0 {
                detail.push_str(&format!(" and {more} more"));
            }
        }
        return Err(Error::new(ErrorKind::NotATool, detail));
    }
    for read in reads {
        read.tools
            .retain(|tool| tool.as_ref().is_ok_and(|tool| tool.value.name == name));
        if !read.tools.is_empty() {
            read.shape = Shape::Single;
        }
    }
    Ok(())
}

/// Reads the tools in `text` (JSON).
///
/// ```
/// let read = toolbridge::read(r#"{"name": "ping", "inputSchema": {"type": "object"}}"#,
///     &toolbridge::ReadOptions::default()).unwrap();
/// assert_eq!(read.format, toolbridge::Format::Mcp);
/// assert_eq!(read.into_converted().unwrap().value[0].name, "ping");
/// ```
pub fn read(text: &str, opts: &ReadOptions) -> Result<Read> {
    // A byte order mark is how some editors save UTF-8, not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let located = |err: Error| match &opts.origin {
        Some(origin) => err.with_origin(origin.clone()),
        None => err,
    };
    if text.len() > opts.limits.max_bytes {
        return Err(located(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the input is {} bytes; the limit is {}",
                text.len(),
                opts.limits.max_bytes
            ),
        )));
    }
    let text_format = match opts.from {
        Some(format) => matches!(format.info().codec, Codec::Text(_)).then_some(format),
        None => detect_text(text, opts.origin.as_deref()),
    };
    if let Some(format) = text_format {
        let Codec::Text(codec) = &format.info().codec else {
            unreachable!("detect_text returns text formats only");
        };
        let tools = (codec.read)(text, opts)
            .map_err(|err| located(err.with_format(format)))?
            .into_iter()
            .map(|tool| tool.map_err(|err| located(err.with_format(format))))
            .collect();
        return Ok(Read {
            format,
            shape: Shape::List,
            tools,
            notes: Vec::new(),
            origin: opts.origin.clone(),
        });
    }
    let doc = json::parse(text, opts.limits.max_depth).map_err(located)?;
    read_document(doc, opts, &|| json::parse(text, opts.limits.max_depth)).map_err(located)
}

/// Reads the tools in an already parsed JSON document.
pub fn read_value(doc: &Value, opts: &ReadOptions) -> Result<Read> {
    read_document(doc.clone(), opts, &|| Ok(doc.clone()))
}

/// [`read_value`] on a document the reader may take apart: each tool entry
/// is moved out of it into its reader. `again` gives the document once more,
/// only when a detected format's tools fail and its fallback is tried (so a
/// document that reads pays for no spare copy).
fn read_document(doc: Value, opts: &ReadOptions, again: &dyn Fn() -> Result<Value>) -> Result<Read> {
    let mut notes = Notes::new();
    let (format, shape, places) = find_entries(&doc, opts, &mut notes)?;
    let fallback = opts.from.is_none().then(|| format.info().fallback).flatten();
    let tools = read_entries(doc, places, format, opts);
    if let (Some(other), Some(Err(failure))) = (fallback, tools.iter().find(|tool| tool.is_err())) {
        let spare = again()?;
        let other_opts = opts.clone().with_from(other);
        let mut other_notes = Notes::new();
        if let Ok((_, other_shape, other_places)) = find_entries(&spare, &other_opts, &mut other_notes) {
            let at = other_places.first().cloned().unwrap_or_else(Pointer::root);
            let other_tools = read_entries(spare, other_places, other, opts);
            if other_tools.iter().all(Result::is_ok) {
                other_notes.push(
                    NoteKind::Normalized {
                        field: "format".into(),
                    },
                    at,
                    format!(
                        "read as {}: the entries also have {}'s shape, but read as {} they fail ({failure})",
                        other.id(),
                        format.id(),
                        format.id()
                    ),
                );
                return Ok(Read {
                    format: other,
                    shape: other_shape,
                    tools: other_tools,
                    notes: other_notes.into_vec(),
                    origin: opts.origin.clone(),
                });
            }
        }
    }
    Ok(Read {
        format,
        shape,
        tools,
        notes: notes.into_vec(),
        origin: opts.origin.clone(),
    })
}

/// Reads the entries at `places`, each moved out of `doc` into `format`'s reader.
fn read_entries(mut doc: Value, places: Vec<Pointer>, format: Format, opts: &ReadOptions) -> ReadTools {
    let Codec::Json(codec) = &format.info().codec else {
        unreachable!("find_entries returns JSON formats only");
    };
    places
        .into_iter()
        .map(|at| {
            let value = doc
                .pointer_mut(at.as_str())
                .map(std::mem::take)
                .unwrap_or_default();
            // Taken before the reader consumes the entry, for its error.
            let name = entry_name(&value).map(str::to_owned);
            let mut tool_notes = Notes::new();
            (codec.read)(Entry { value, at }, opts, &mut tool_notes)
                .map(|tool| Converted {
                    value: tool,
                    notes: tool_notes.into_vec(),
                })
                .map_err(|err| match name {
                    Some(name) => err.with_format(format).with_tool(name),
                    None => err.with_format(format),
                })
        })
        .collect()
}

/// The format of a JSON document and the places of its tool entries (no two
/// of which nest), containers expanded.
fn find_entries(doc: &Value, opts: &ReadOptions, notes: &mut Notes) -> Result<(Format, Shape, Vec<Pointer>)> {
    let (shape, list) = shared::tool_list(doc)?;
    let format = match opts.from {
        Some(format) => format,
        None => detect(&list, notes)?,
    };
    let Codec::Json(codec) = &format.info().codec else {
        return Err(Error::new(
            ErrorKind::InvalidJson,
            format!("{} is a source-text format, not JSON", format.id()),
        ));
    };
    let mut places = Vec::new();
    for node in list {
        match codec.expand.and_then(|expand| expand(node.clone(), notes)) {
            Some(Ok(expanded)) => places.extend(expanded.into_iter().map(|entry| entry.at)),
            Some(Err(err)) => return Err(err.with_format(format)),
            None => places.push(node.at),
        }
    }
    if places.len() > opts.limits.max_tools {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the document holds {} tools; the limit is {}",
                places.len(),
                opts.limits.max_tools
            ),
        )
        .with_format(format));
    }
    Ok((format, shape, places))
}

/// The name an entry that failed to read gives itself, wherever its format
/// keeps it (`name`, `function.name`, `toolSpec.name`, `tool.function.name`).
fn entry_name(entry: &Value) -> Option<&str> {
    fn name(value: &Value) -> Option<&str> {
        value
            .get("name")
            .and_then(Value::as_str)
            .filter(|name| !name.is_empty())
    }
    name(entry)
        .or_else(|| entry.get("function").and_then(name))
        .or_else(|| entry.get("toolSpec").and_then(name))
        .or_else(|| {
            entry
                .get("tool")
                .and_then(|tool| tool.get("function"))
                .and_then(name)
        })
}

/// One tool as written.
#[derive(Debug)]
#[non_exhaustive]
pub struct WrittenTool {
    /// The tool's canonical name.
    pub name: String,
    /// The entry with its notes, or why this tool could not be written.
    pub result: Result<Converted<Output>>,
    /// What turns a call of the written tool back into a call of the
    /// canonical one: the name it got and the rewrites to undo.
    pub inverse: Inverse,
}

/// What writing a set of tools produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct Written {
    /// The target format.
    pub format: Format,
    /// Each tool's entry, notes or error, in input order.
    pub tools: Vec<WrittenTool>,
    /// Notes about the set as a whole (limits on the number of tools, …).
    pub notes: Vec<Note>,
    /// Canonical names and the names the target got.
    pub names: NameMap,
}

impl Written {
    /// True when every tool was written.
    pub fn is_complete(&self) -> bool {
        self.tools.iter().all(|tool| tool.result.is_ok())
    }

    /// Every note: each tool's, then the set's.
    pub fn all_notes(&self) -> impl Iterator<Item = &Note> {
        self.tools
            .iter()
            .filter_map(|tool| tool.result.as_ref().ok())
            .flat_map(|converted| converted.notes.iter())
            .chain(self.notes.iter())
    }

    /// Every note and every tool that could not be written, each with its
    /// place: each tool's in input order, then the set's.
    pub fn findings(&self, origin: Option<&str>) -> Vec<Finding> {
        let place = |tool: Option<&str>| Place {
            origin: origin.map(str::to_string),
            tool: tool.map(str::to_string),
            format: Some(self.format),
        };
        let mut findings = Vec::new();
        for tool in &self.tools {
            match &tool.result {
                Ok(converted) => findings.extend(
                    converted
                        .notes
                        .iter()
                        .map(|note| place(Some(&tool.name)).note(note.clone())),
                ),
                Err(err) => findings.push(place(Some(&tool.name)).error(err.clone())),
            }
        }
        findings.extend(self.notes.iter().map(|note| place(None).note(note.clone())));
        findings
    }

    /// All written entries as one document: the list a request's `tools`
    /// field holds (a copy of each entry; [`Conversion::text`] has the same
    /// document as text without one).
    pub fn output(&self) -> Output {
        match &self.format.info().codec {
            Codec::Json(codec) => Output::Json(codec.layout.wrap(self.json_entries().cloned().collect())),
            Codec::Text(codec) => Output::Text((codec.join)(
                self.entries()
                    .filter_map(|entry| match entry {
                        Output::Text(text) => Some(text.clone()),
                        Output::Json(_) => None,
                    })
                    .collect(),
            )),
        }
    }

    /// The written entries, in input order.
    fn entries(&self) -> impl Iterator<Item = &Output> {
        self.tools
            .iter()
            .filter_map(|tool| tool.result.as_ref().ok())
            .map(|converted| &converted.value)
    }

    /// The written entries of a JSON format.
    fn json_entries(&self) -> impl Iterator<Item = &Value> {
        self.entries().filter_map(Output::as_json)
    }

    /// The tool's entry alone when `single` and exactly one tool was
    /// written; otherwise the list (empty text when no entry came out of a
    /// source-text format).
    fn text(&self, single: bool) -> String {
        if single {
            if let [only] = self.tools.as_slice() {
                if let Ok(converted) = &only.result {
                    return converted.value.to_text();
                }
            }
        }
        match &self.format.info().codec {
            Codec::Json(codec) => codec.layout.to_text(&self.json_entries().collect::<Vec<_>>()),
            Codec::Text(_) => match self.output() {
                Output::Text(text) if text.is_empty() => String::new(),
                output => output.to_text(),
            },
        }
    }
}

/// Writes `tools` in format `to`, each on its own: a tool that cannot be
/// written is reported in [`Written::tools`] and the others still come out.
pub fn write(tools: &[Tool], to: Format, opts: &WriteOptions) -> Written {
    let tools: Vec<&Tool> = tools.iter().collect();
    write_all(&tools, to, opts)
}

fn write_all(tools: &[&Tool], to: Format, opts: &WriteOptions) -> Written {
    let info = to.info();
    let names = NameMap::build(
        tools.iter().map(|tool| tool.name.as_str()),
        info.name_rule.as_ref(),
    );
    let input_schema = Pointer::root().key("inputSchema");
    let mut written = Vec::with_capacity(tools.len());
    for (index, &tool) in tools.iter().enumerate() {
        let mut notes = Notes::new();
        let target_name = names.target_at(index).unwrap_or(&tool.name);
        let renamed;
        let tool_to_write = if target_name == tool.name {
            tool
        } else {
            notes.push(
                NoteKind::Renamed {
                    from: tool.name.as_str().into(),
                    to: target_name.into(),
                },
                Pointer::root().key("name"),
                format!(
                    "renamed {:?} to {target_name:?} to fit {}'s name rules",
                    tool.name, info.id
                ),
            );
            renamed = Tool {
                name: target_name.to_string(),
                ..tool.clone()
            };
            &renamed
        };
        let result = match &info.codec {
            Codec::Json(codec) => (codec.write)(tool_to_write, opts, &mut notes).map(Output::Json),
            Codec::Text(codec) => (codec.write)(tool_to_write, opts, &mut notes).map(Output::Text),
        }
        .map_err(|err| err.with_format(to));
        let (notes, rewrites) = notes.into_parts(&input_schema);
        written.push(WrittenTool {
            name: tool.name.clone(),
            inverse: Inverse {
                name: tool.name.clone(),
                written_name: target_name.to_string(),
                rewrites,
            },
            result: result.map(|value| Converted { value, notes }),
        });
    }
    let mut set_notes = Notes::new();
    if let Codec::Json(JsonCodec {
        check_set: Some(check_set),
        ..
    }) = &info.codec
    {
        let entries: Vec<&Value> = written
            .iter()
            .filter_map(|tool| tool.result.as_ref().ok()?.value.as_json())
            .collect();
        check_set(&entries, opts, &mut set_notes);
    }
    Written {
        format: to,
        tools: written,
        notes: set_notes.into_vec(),
        names,
    }
}

/// Writes one tool in format `to`: the entry alone, not wrapped in a list.
pub fn write_tool(tool: &Tool, to: Format, opts: &WriteOptions) -> Result<Converted<Output>> {
    let mut written = write_all(&[tool], to, opts);
    let mut only = written.tools.remove(0).result?;
    only.notes.extend(written.notes);
    Ok(only)
}

/// Options for [`convert`] and [`lint`]: how to read, how to write.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Options {
    /// How the input is read.
    pub read: ReadOptions,
    /// How the tools are written.
    pub write: WriteOptions,
}

impl Options {
    /// Sets the read options.
    pub fn with_read(mut self, read: ReadOptions) -> Options {
        self.read = read;
        self
    }

    /// Sets the write options.
    pub fn with_write(mut self, write: WriteOptions) -> Options {
        self.write = write;
        self
    }
}

/// What [`convert`] produced: the output, every tool as written, and every
/// note and failure of reading and writing.
#[derive(Debug)]
#[non_exhaustive]
pub struct Conversion {
    /// The output as text: one entry when the input was one tool written as
    /// a single entry, else the target's list.
    pub text: String,
    /// The written set, with each tool's entry and [`Inverse`].
    pub written: Written,
    /// Every note and failed tool: reading's first, then writing's.
    pub findings: Vec<Finding>,
}

impl Conversion {
    /// True when some finding is at or above `deny`, or is an error (the
    /// target would reject the output, or a tool was left out).
    pub fn is_denied(&self, deny: Option<Level>) -> bool {
        self.findings.iter().any(|finding| finding.is_denied(deny))
    }
}

/// Reads `input` (any format, detected unless [`ReadOptions::from`] says)
/// and writes its tools in format `to`.
///
/// ```
/// let input = r#"{"name": "get_weather", "title": "Weather",
///     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}"#;
/// let converted = toolbridge::convert(input, toolbridge::Format::Gemini, &Default::default())?;
/// assert!(converted.text.contains("\"type\": \"OBJECT\""));
/// let lines: Vec<String> = converted.findings.iter().map(|finding| finding.to_string()).collect();
/// assert_eq!(lines, [
///     "get_weather: gemini: info: type names were written in uppercase (\"OBJECT\", \"STRING\", …), \
///      Gemini's spelling (at /inputSchema)",
///     "get_weather: gemini: loss: gemini has no place for \"title\" (at /title)",
/// ]);
/// # Ok::<(), toolbridge::Error>(())
/// ```
pub fn convert(input: &str, to: Format, options: &Options) -> Result<Conversion> {
    let read = read(input, &options.read)?;
    Ok(convert_read(std::slice::from_ref(&read), to, &options.write))
}

/// Writes the tools of one or more documents already read in format `to`
/// (the tools of every document together, as one set).
pub fn convert_read(reads: &[Read], to: Format, opts: &WriteOptions) -> Conversion {
    let tools: Vec<&Tool> = reads.iter().flat_map(Read::ok_tools).collect();
    let written = write_all(&tools, to, opts);
    let single =
        !opts.list && matches!(reads, [only] if only.shape == Shape::Single && only.tools.len() == 1);
    let mut findings: Vec<Finding> = reads.iter().flat_map(Read::findings).collect();
    findings.extend(written.findings(None));
    Conversion {
        text: written.text(single),
        written,
        findings,
    }
}

/// What [`lint`] found: every note and failure for every target.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct Report {
    /// How many tools were read.
    pub tools: usize,
    /// The targets checked.
    pub targets: Vec<Format>,
    /// Reading's findings, then each target's in the order of `targets`.
    pub findings: Vec<Finding>,
}

impl Report {
    /// An empty report for `targets` (every format but `toolbridge` when
    /// empty), to [extend](Report::extend) with each input's.
    pub fn new(targets: &[Format]) -> Report {
        Report {
            targets: lint_targets(targets),
            ..Report::default()
        }
    }

    /// How many findings are at `level` (failed tools count as errors).
    pub fn count(&self, level: Level) -> usize {
        self.findings
            .iter()
            .filter(|finding| finding.level() == level)
            .count()
    }

    /// True when some finding is at or above `deny`, or is an error.
    pub fn is_denied(&self, deny: Option<Level>) -> bool {
        self.findings.iter().any(|finding| finding.is_denied(deny))
    }

    /// Adds another input's report to this one (same targets).
    pub fn extend(&mut self, other: Report) {
        self.tools += other.tools;
        self.findings.extend(other.findings);
    }

    /// One line: `lint: 3 tools for 15 targets: 1 error, 4 loss, 2 change, 0 info`.
    pub fn summary(&self) -> String {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        format!(
            "lint: {} tool{} for {} target{}: {} error, {} loss, {} change, {} info",
            self.tools,
            plural(self.tools),
            self.targets.len(),
            plural(self.targets.len()),
            self.count(Level::Error),
            self.count(Level::Loss),
            self.count(Level::Change),
            self.count(Level::Info),
        )
    }
}

/// Reads `input` and writes its tools for every format in `targets`,
/// collecting what each would change, lose or get rejected for; every
/// format but `toolbridge` when `targets` is empty.
///
/// ```
/// let input = r#"{"name": "f", "inputSchema": {"type": "object",
///     "properties": {"n": {"type": "integer", "minimum": 1}}}}"#;
/// let report = toolbridge::lint(input, &[toolbridge::Format::Gemini], &Default::default())?;
/// assert_eq!(report.summary(), "lint: 1 tool for 1 target: 0 error, 0 loss, 0 change, 1 info");
/// # Ok::<(), toolbridge::Error>(())
/// ```
pub fn lint(input: &str, targets: &[Format], options: &Options) -> Result<Report> {
    let read = read(input, &options.read)?;
    Ok(lint_read(&read, targets, &options.write))
}

/// [`lint`] for a document already read.
pub fn lint_read(read: &Read, targets: &[Format], opts: &WriteOptions) -> Report {
    let targets = lint_targets(targets);
    let tools: Vec<&Tool> = read.ok_tools().collect();
    let mut findings = read.findings();
    for &format in &targets {
        findings.extend(write_all(&tools, format, opts).findings(read.origin.as_deref()));
    }
    Report {
        tools: tools.len(),
        targets,
        findings,
    }
}

/// The formats to lint for: `targets`, or every format but `toolbridge`.
fn lint_targets(targets: &[Format]) -> Vec<Format> {
    if targets.is_empty() {
        Format::all()
            .filter(|format| *format != Format::Toolbridge)
            .collect()
    } else {
        targets.to_vec()
    }
}

/// Where a finding belongs: the input, the tool, the format written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Place {
    /// The input's name (usually a file name), if it had one.
    pub origin: Option<String>,
    /// The tool's canonical name; `None` for the document or set as a whole.
    pub tool: Option<String>,
    /// The format written; `None` while reading.
    pub format: Option<Format>,
}

impl Place {
    fn note(self, note: Note) -> Finding {
        Finding {
            place: self,
            found: Found::Note(note),
        }
    }

    fn error(self, error: Error) -> Finding {
        Finding {
            place: self,
            found: Found::Error(error),
        }
    }
}

/// A note, or a tool left out by an error, with its place.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Finding {
    /// Where it belongs.
    pub place: Place,
    /// What was found.
    pub found: Found,
}

/// What a [`Finding`] is.
#[derive(Clone, Debug)]
pub enum Found {
    /// Output was produced, and this is what changed.
    Note(Note),
    /// This tool could not be read or written; the rest went on.
    Error(Error),
}

impl Finding {
    /// The note's level, or [`Level::Error`] for a tool that failed.
    pub fn level(&self) -> Level {
        match &self.found {
            Found::Note(note) => note.level(),
            Found::Error(_) => Level::Error,
        }
    }

    /// True for an error, or a note at or above `deny`.
    pub fn is_denied(&self, deny: Option<Level>) -> bool {
        let level = self.level();
        level == Level::Error || deny.is_some_and(|deny| level >= deny)
    }

    /// The place as `origin: tool: format`, the parts it has.
    fn prefix(&self) -> String {
        let place = &self.place;
        let parts = [
            place.origin.as_deref(),
            place.tool.as_deref(),
            place.format.map(Format::id),
        ];
        parts.into_iter().flatten().collect::<Vec<_>>().join(": ")
    }

    /// The finding as one JSON object: the place, then the note's fields
    /// (or `level`, `message`, `at` for an error, then the place).
    pub fn to_json(&self) -> Value {
        let place = [
            ("origin", self.place.origin.as_deref()),
            ("tool", self.place.tool.as_deref()),
            ("format", self.place.format.map(Format::id)),
        ];
        let mut object = serde_json::Map::new();
        match &self.found {
            Found::Note(note) => {
                object.extend(
                    place
                        .iter()
                        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v.into()))),
                );
                if let Ok(Value::Object(fields)) = serde_json::to_value(note) {
                    object.extend(fields);
                }
            }
            Found::Error(err) => {
                object.insert("level".into(), "error".into());
                object.insert("message".into(), err.to_string().into());
                object.insert("at".into(), err.pointer().as_str().into());
                object.extend(
                    place
                        .iter()
                        .filter_map(|(k, v)| v.map(|v| (k.to_string(), v.into()))),
                );
            }
        }
        Value::Object(object)
    }
}

/// `origin: tool: format: level: message (at pointer)`, or
/// `origin: tool: format: error: …` for a tool that failed.
impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = self.prefix();
        if !prefix.is_empty() {
            write!(f, "{prefix}: ")?;
        }
        match &self.found {
            Found::Note(note) => write!(f, "{}: {} (at {})", note.level(), note.message, note.at),
            Found::Error(err) => write!(f, "error: {err}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TWO_TOOLS: &str = r#"[
        {"name": "ok", "title": "OK", "inputSchema": {"type": "object",
            "properties": {"unit": {"type": "string"}, "n": {"type": "integer"}}, "required": ["n"]}},
        {"name": "bad", "inputSchema": {"type": "int"}}
    ]"#;

    fn lines(findings: &[Finding]) -> Vec<String> {
        findings.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn reading_keeps_failures_and_notes_with_their_place() {
        let read = read(TWO_TOOLS, &ReadOptions::default().with_origin("t.json")).unwrap();
        assert_eq!(
            lines(&read.findings()),
            ["t.json: error: invalid tool: must be \"object\"; found \"int\" (at /1/inputSchema/type, tool \"bad\")"]
        );
        assert_eq!(
            read.ok_tools().map(|tool| tool.name.as_str()).collect::<Vec<_>>(),
            ["ok"]
        );
        assert_eq!(read.into_converted().unwrap_err().kind(), ErrorKind::InvalidTool);
    }

    #[test]
    fn a_flat_list_with_json_schema_parameters_reads_as_the_openai_function_shape() {
        // OpenAI's legacy `functions` entries (and Responses tools without
        // their "type") look like Gemini declarations; a JSON Schema type
        // list cannot be Gemini's OpenAPI subset, so the Responses reader,
        // which takes them, is kept, and says why.
        let text = r#"[
            {"name": "get_rate", "parameters": {"type": "object", "properties": {"pair": {"type": "string"}}}},
            {"name": "get_balance", "parameters": {"type": "object",
                "properties": {"account": {"type": ["string", "null"]}}}}
        ]"#;
        let read = read(text, &ReadOptions::default()).unwrap();
        assert_eq!(read.format, Format::OpenAiResponses);
        assert_eq!(
            read.notes[0].message,
            "read as openai-responses: the entries also have gemini's shape, but read as gemini they fail \
             (invalid schema: a Gemini \"type\" is a single type name such as \"STRING\", found an array \
             (at /1/parameters/properties/account/type, tool \"get_balance\"))"
        );
        assert_eq!(read.notes[0].at.as_str(), "/0");
        let tools = read.into_converted().unwrap().value;
        assert_eq!(
            tools[1].input_schema["properties"]["account"],
            json!({"type": ["string", "null"]})
        );
        // Named, the format is read as given, failure and all.
        let named = super::read(text, &ReadOptions::default().with_from(Format::Gemini)).unwrap();
        assert!(named.tools[1].is_err());
        // A document Gemini reads stays Gemini.
        let gemini = super::read(
            r#"[{"name": "a", "parameters": {"type": "OBJECT"}}]"#,
            &ReadOptions::default(),
        );
        assert_eq!(gemini.unwrap().format, Format::Gemini);
    }

    #[test]
    fn findings_print_as_lines_and_json_objects() {
        let options = Options::default().with_read(ReadOptions::default().with_origin("t.json"));
        let conversion = convert(TWO_TOOLS, Format::Gemini, &options).unwrap();
        assert_eq!(
            lines(&conversion.findings)[1..],
            [
                "ok: gemini: info: type names were written in uppercase (\"OBJECT\", \"STRING\", …), \
                 Gemini's spelling (at /inputSchema)",
                "ok: gemini: loss: gemini has no place for \"title\" (at /title)",
            ]
        );
        assert_eq!(
            conversion.findings[0].to_json(),
            json!({"level": "error", "message": "invalid tool: must be \"object\"; found \"int\" (at /1/inputSchema/type, tool \"bad\")",
                "at": "/1/inputSchema/type", "origin": "t.json"})
        );
        assert_eq!(
            conversion.findings[2].to_json().to_string(),
            r#"{"tool":"ok","format":"gemini","kind":"dropped","keyword":"title","level":"loss","at":"/title","message":"gemini has no place for \"title\""}"#
        );
        assert!(
            conversion.is_denied(None),
            "a tool that failed to read is an error"
        );
        assert_eq!(conversion.findings[2].level(), Level::Loss);
        assert!(conversion.findings[2].is_denied(Some(Level::Loss)));
        assert!(!conversion.findings[2].is_denied(Some(Level::Error)));
    }

    #[test]
    fn a_single_entry_stays_single_and_a_list_stays_a_list() {
        let one = r#"{"name": "f", "inputSchema": {"type": "object"}}"#;
        let single = convert(one, Format::Anthropic, &Options::default()).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&single.text).unwrap(),
            json!({"name": "f", "input_schema": {"type": "object"}})
        );
        let list = convert(&format!("[{one}]"), Format::Anthropic, &Options::default()).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&list.text).unwrap(),
            json!([{"name": "f", "input_schema": {"type": "object"}}])
        );
    }

    #[test]
    fn written_tools_carry_their_inverse() {
        let options = Options::default().with_write(WriteOptions::default().with_strict(true));
        let tool = r#"{"name": "github.search", "inputSchema": {"type": "object", "properties": {
            "q": {"type": "string"}, "filters": {"type": "array", "items": {"type": "object",
                "properties": {"label": {"type": "string"}}}}}, "required": ["q"]}}"#;
        let conversion = convert(tool, Format::OpenAi, &options).unwrap();
        let inverse = &conversion.written.tools[0].inverse;
        assert_eq!(
            (inverse.name.as_str(), inverse.written_name.as_str()),
            ("github.search", "github_search")
        );
        let places: Vec<&str> = inverse
            .rewrites
            .iter()
            .map(|rewrite| match rewrite {
                Rewrite::NullMeansAbsent { at } | Rewrite::JsonEncoded { at, .. } => at.as_str(),
                Rewrite::Nested { key } => key.as_str(),
            })
            .collect();
        assert_eq!(places, ["/filters", "/filters/*/label"]);
        let mut arguments = json!({"q": "x", "filters": [{"label": null}, {"label": "bug"}]});
        inverse.restore(&mut arguments);
        assert_eq!(arguments, json!({"q": "x", "filters": [{}, {"label": "bug"}]}));
        // Not strict: nothing to undo.
        let plain = convert(tool, Format::OpenAi, &Options::default()).unwrap();
        assert_eq!(plain.written.tools[0].inverse.rewrites, []);
    }

    #[test]
    fn lint_counts_every_target_and_reading() {
        let report = lint(
            TWO_TOOLS,
            &[Format::Gemini, Format::Anthropic],
            &Options::default(),
        )
        .unwrap();
        assert_eq!(
            report.summary(),
            "lint: 1 tool for 2 targets: 1 error, 2 loss, 0 change, 1 info"
        );
        let mut all = Report::new(&[]);
        all.extend(lint_read(
            &read(TWO_TOOLS, &ReadOptions::default()).unwrap(),
            &[],
            &WriteOptions::default(),
        ));
        assert_eq!(all.targets.len(), Format::ALL.len() - 1);
        assert_eq!(all.tools, 1);
    }
}
