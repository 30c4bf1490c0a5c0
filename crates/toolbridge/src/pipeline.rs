//! The front door: read a document into tools, write tools in a format.

use serde_json::Value;

use crate::codec::Codec;
use crate::error::{Error, ErrorKind, Result};
use crate::format::shared;
use crate::json;
use crate::note::{Converted, Note, NoteKind, Notes};
use crate::options::{Format, Output, ReadOptions, Shape, WriteOptions};
use crate::pointer::Pointer;
use crate::registry::{detect, detect_text};
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
}

impl Read {
    /// The tools that were read, dropping failures and notes.
    pub fn into_tools(self) -> Vec<Tool> {
        self.tools
            .into_iter()
            .filter_map(|tool| tool.ok().map(|c| c.value))
            .collect()
    }
}

/// Reads the tools in `text` (JSON).
///
/// ```
/// let read = toolbridge::read(r#"{"name": "ping", "inputSchema": {"type": "object"}}"#,
///     &toolbridge::ReadOptions::default()).unwrap();
/// assert_eq!(read.format, toolbridge::Format::Mcp);
/// assert_eq!(read.into_tools()[0].name, "ping");
/// ```
pub fn read(text: &str, opts: &ReadOptions) -> Result<Read> {
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
        });
    }
    json::check_depth(text, opts.limits.max_depth).map_err(located)?;
    let doc: Value = serde_json::from_str(text).map_err(|err| located(Error::from(err)))?;
    read_value(&doc, opts).map_err(located)
}

/// Reads the tools in an already parsed JSON document.
pub fn read_value(doc: &Value, opts: &ReadOptions) -> Result<Read> {
    let (shape, list) = shared::tool_list(doc)?;
    let mut notes = Notes::new();
    let format = match opts.from {
        Some(format) => format,
        None => detect(&list, &mut notes)?,
    };
    let Codec::Json(codec) = &format.info().codec else {
        return Err(Error::new(
            ErrorKind::InvalidJson,
            format!("{} is a source-text format, not JSON", format.id()),
        ));
    };
    let mut entries = Vec::new();
    for node in list {
        match codec.expand.and_then(|expand| expand(node.clone(), &mut notes)) {
            Some(Ok(expanded)) => entries.extend(expanded),
            Some(Err(err)) => return Err(err.with_format(format)),
            None => entries.push(node),
        }
    }
    if entries.len() > opts.limits.max_tools {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the document holds {} tools; the limit is {}",
                entries.len(),
                opts.limits.max_tools
            ),
        )
        .with_format(format));
    }
    let tools = entries
        .into_iter()
        .map(|entry| {
            let mut tool_notes = Notes::new();
            (codec.read)(entry, opts, &mut tool_notes)
                .map(|tool| Converted {
                    value: tool,
                    notes: tool_notes.into_vec(),
                })
                .map_err(|err| err.with_format(format))
        })
        .collect();
    Ok(Read {
        format,
        shape,
        tools,
        notes: notes.into_vec(),
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
}

/// What writing a set of tools produced.
#[derive(Debug)]
#[non_exhaustive]
pub struct Written {
    /// The target format.
    pub format: Format,
    /// All written entries, as the list a request's `tools` field holds.
    pub output: Output,
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
}

/// Writes `tools` in format `to`, each on its own: a tool that cannot be
/// written is reported in [`Written::tools`] and the others still come out.
pub fn write(tools: &[Tool], to: Format, opts: &WriteOptions) -> Written {
    let info = to.info();
    let names = NameMap::build(
        tools.iter().map(|tool| tool.name.as_str()),
        info.name_rule.as_ref(),
    );
    let mut written = Vec::with_capacity(tools.len());
    let mut entries = Vec::with_capacity(tools.len());
    for (index, tool) in tools.iter().enumerate() {
        let mut notes = Notes::new();
        let target_name = names.target_at(index).unwrap_or(&tool.name);
        let renamed;
        let tool_to_write = if target_name == tool.name {
            tool
        } else {
            notes.push(
                NoteKind::Renamed {
                    from: tool.name.clone(),
                    to: target_name.to_string(),
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
        if let Ok(output) = &result {
            entries.push(output.clone());
        }
        written.push(WrittenTool {
            name: tool.name.clone(),
            result: result.map(|value| Converted {
                value,
                notes: notes.into_vec(),
            }),
        });
    }
    let mut set_notes = Notes::new();
    let output = match &info.codec {
        Codec::Json(codec) => {
            let values: Vec<Value> = entries
                .into_iter()
                .filter_map(|entry| entry.as_json().cloned())
                .collect();
            if let Some(check_set) = codec.check_set {
                check_set(&values, opts, &mut set_notes);
            }
            Output::Json((codec.wrap)(values))
        }
        Codec::Text(codec) => Output::Text((codec.join)(
            entries
                .into_iter()
                .filter_map(|entry| match entry {
                    Output::Text(text) => Some(text),
                    Output::Json(_) => None,
                })
                .collect(),
        )),
    };
    Written {
        format: to,
        output,
        tools: written,
        notes: set_notes.into_vec(),
        names,
    }
}

/// Writes one tool in format `to`: the entry alone, not wrapped in a list.
pub fn write_tool(tool: &Tool, to: Format, opts: &WriteOptions) -> Result<Converted<Output>> {
    let mut written = write(std::slice::from_ref(tool), to, opts);
    let mut only = written.tools.remove(0).result?;
    only.notes.extend(written.notes);
    Ok(only)
}
