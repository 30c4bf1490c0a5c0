//! Finding the tools in a file: every `(gptel-make-tool …)` and
//! `(llm-make-tool …)` form, every tool plist passed to another call, read
//! the way `load` reads the file (CRLF decoded, the Local Variables'
//! `read-symbol-shorthands` applied, a form that does not read costing only
//! itself). `read.rs` maps each tool found to a canonical tool.

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Result};
use crate::note::{Converted, NoteKind, Notes};
use crate::options::ReadOptions;
use crate::pointer::Pointer;
use crate::tool::Tool;

use super::read::ToolReader;
use super::sexp::{self, Kind, Sexp, Span};
use super::{first_head, Flavor};

/// Reads every `(gptel-make-tool …)` and `(llm-make-tool …)` form in `text`
/// (both constructors take the same plist; `flavor` decides how slots only
/// one of them has are treated and where unknown keys are kept), and every
/// tool plist passed to another call (a wrapper such as ellama's
/// `(ellama-tools-define-tool '(:name … :function … :args …))`).
///
/// The text is read as Emacs reads a file: CRLF line ends are decoded
/// first (as `load` does, in files with mixed line ends too), and a
/// top-level form that does not read costs only itself: an entry that fails
/// with its line and column when it holds a tool, else a note on the first
/// tool.
pub(crate) fn read_as(
    text: &str,
    opts: &ReadOptions,
    flavor: Flavor,
) -> Result<Vec<Result<Converted<Tool>>>> {
    let text: Cow<'_, str> = if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    };
    let text = text.as_ref();
    let file = sexp::read_file(text, opts.limits.max_depth);
    let shorthands = read_symbol_shorthands(text, opts.limits.max_depth);
    let mut found = Vec::new();
    for form in &file.forms {
        collect_tools(form, &mut found);
    }
    let (lost, unread): (Vec<_>, Vec<_>) = file.failures.into_iter().partition(|failure| {
        let skipped = &text[failure.skipped.start..failure.skipped.end];
        first_head(skipped).is_some() || (skipped.contains(":name") && skipped.contains(":function"))
    });
    if found.is_empty() && lost.is_empty() {
        let unread = match unread.first() {
            Some(failure) => format!(
                "; {} form(s) did not read, the first: {}",
                unread.len(),
                failure.error
            ),
            None => String::new(),
        };
        return Err(Error::new(
            ErrorKind::NotATool,
            format!(
                "the Emacs Lisp holds no tool: no ({} …) or ({} …) form, and no tool plist (:name … :function … :args …) passed to another call{unread}",
                Flavor::Gptel.head(),
                Flavor::Llm.head(),
            ),
        ));
    }
    if found.len() + lost.len() > opts.limits.max_tools {
        return Err(Error::new(
            ErrorKind::LimitExceeded,
            format!(
                "the file holds {} tools; the limit is {}",
                found.len() + lost.len(),
                opts.limits.max_tools
            ),
        ));
    }
    let mut entries: Vec<(usize, Result<Converted<Tool>>)> = Vec::with_capacity(found.len() + lost.len());
    for (index, tool) in found.iter().enumerate() {
        let mut reader = ToolReader {
            text,
            flavor,
            quoted: tool.quoted,
            inexact: &file.inexact,
            shorthands: &shorthands,
            notes: Notes::new(),
        };
        let base = Pointer::root().index(index);
        if index == 0 {
            for failure in &unread {
                let (line, column) = sexp::line_column(text, failure.skipped.start);
                reader.notes.push(
                    NoteKind::Normalized { field: "form".into() },
                    Pointer::root(),
                    format!(
                        "skipped the form at line {line}, column {column}: it does not read ({}) and holds no tool",
                        failure.error
                    ),
                );
            }
        }
        let entry = reader.read_tool(tool, base).map(|tool| Converted {
            value: tool,
            notes: reader.notes.into_vec(),
        });
        entries.push((tool.span.start, entry));
    }
    for failure in lost {
        let (line, column) = sexp::line_column(text, failure.skipped.start);
        let error = Error::new(
            failure.error.kind(),
            format!(
                "{}; the form at line {line}, column {column} holds a tool, which was skipped",
                failure.error.detail()
            ),
        );
        let error = match failure.error.position() {
            Some((line, column)) => error.with_position(line, column),
            None => error,
        };
        entries.push((failure.skipped.start, Err(error)));
    }
    entries.sort_by_key(|(start, _)| *start);
    Ok(entries.into_iter().map(|(_, entry)| entry).collect())
}

/// The `read-symbol-shorthands` of the file's Local Variables block (in its
/// last 3000 characters, where `hack-local-variables` looks), longest short
/// prefix first: `load` reads a symbol `tools/x` under `(("tools/" .
/// "my-tools-"))` as `my-tools-x` (Emacs 28 and later).
fn read_symbol_shorthands(text: &str, max_depth: usize) -> Vec<(String, String)> {
    let mut tail_start = text.len().saturating_sub(3000);
    while !text.is_char_boundary(tail_start) {
        tail_start -= 1;
    }
    let tail = &text[tail_start..];
    let Some(at) = tail.rfind("Local Variables:") else {
        return Vec::new();
    };
    let line_start = tail[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let prefix = tail[line_start..at].trim_end();
    let mut block = String::new();
    for line in tail[at..].lines().skip(1) {
        let line = line.trim_start().strip_prefix(prefix).unwrap_or(line).trim();
        if line.starts_with("End:") {
            break;
        }
        block.push_str(line);
        block.push('\n');
    }
    let Some(value) = block.find("read-symbol-shorthands:").map(|at| &block[at + 23..]) else {
        return Vec::new();
    };
    let file = sexp::read_file(value, max_depth);
    let Some(form) = file.forms.first() else {
        return Vec::new();
    };
    let mut shorthands: Vec<(String, String)> = form
        .list()
        .unwrap_or_default()
        .iter()
        .filter_map(|pair| match &pair.kind {
            Kind::Dotted(head, tail) => match (&head.as_slice(), &tail.kind) {
                ([short], Kind::Str(long)) => match &short.kind {
                    Kind::Str(short) if !short.is_empty() => Some((short.clone(), long.clone())),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .collect();
    shorthands.sort_by_key(|(short, _)| std::cmp::Reverse(short.len()));
    shorthands
}

/// A tool found in the forms: a constructor call, or a tool plist passed to
/// another call.
pub(super) struct Found<'s> {
    /// The constructor, for a `(gptel-make-tool …)` / `(llm-make-tool …)` form.
    pub head: Option<Flavor>,
    /// The call a plist was passed to (`ellama-tools-define-tool`).
    pub wrapper: Option<&'s str>,
    /// The plist.
    pub items: &'s [Sexp],
    /// The plist is quoted data (`'(:name …)`), not code.
    pub quoted: bool,
    /// Where the form or plist is in the text.
    pub span: Span,
}

fn collect_tools<'s>(form: &'s Sexp, found: &mut Vec<Found<'s>>) {
    if let Kind::List(items) = &form.kind {
        let head = items.first().and_then(Sexp::symbol);
        if let Some(flavor) = head.and_then(Flavor::of_head) {
            found.push(Found {
                head: Some(flavor),
                wrapper: None,
                items: &items[1..],
                quoted: false,
                span: form.span,
            });
            return;
        }
        if let Some(head) = head {
            let mut rest = Vec::new();
            for arg in &items[1..] {
                match tool_plist(arg) {
                    Some((plist, quoted)) => found.push(Found {
                        head: None,
                        wrapper: Some(head),
                        items: plist,
                        quoted,
                        span: arg.span,
                    }),
                    None => rest.push(arg),
                }
            }
            for arg in rest {
                collect_tools(arg, found);
            }
            return;
        }
    }
    for child in form.children() {
        collect_tools(child, found);
    }
}

/// The plist of a tool passed as `'(:name … :function … :args …)` (quoted
/// data) or `(list :name … :function … …)` (code): a plist with `:name`,
/// `:function` and `:args` or `:description`, which is what the
/// constructors take.
fn tool_plist(arg: &Sexp) -> Option<(&[Sexp], bool)> {
    let data = match &arg.kind {
        Kind::Backquote(inner) => Some(&**inner),
        _ => arg.unquoted(),
    };
    let (items, quoted) = match data {
        Some(inner) => (inner.list()?, true),
        None => (arg.call_of("list")?, false),
    };
    if items.is_empty() || items.len() % 2 != 0 || !items.iter().step_by(2).all(|key| key.keyword().is_some())
    {
        return None;
    }
    let has = |name: &str| items.iter().step_by(2).any(|key| key.keyword() == Some(name));
    (has("name") && has("function") && (has("args") || has("description"))).then_some((items, quoted))
}
