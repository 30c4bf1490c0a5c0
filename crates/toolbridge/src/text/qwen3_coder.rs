//! Qwen3-Coder and Qwen3.5: `<tool_call><function=NAME><parameter=K>V
//! </parameter></function></tool_call>`, values as raw text (vLLM
//! `qwen3coder_tool_parser.py`, ollama `model/parsers/qwen3coder.go`). A
//! value is the text between the tags with one leading and one trailing
//! line break removed (the template writes each on its own line); the
//! tool's schema types it ([`super::typed`]). Without a schema
//! (no tools given, or a parameter the tool does not have) a value stays
//! a string, ollama's rule, and a note says so.
//!
//! A value may hold this very markup: a coding model writes chat templates
//! and tools that write tool calls. As vLLM's parser reads it now
//! ([`Strict`]), a `</parameter>` ends its value only where the call's
//! markup goes on after it, and markup written in a value nests; ollama's
//! parser cuts such a value at its first `</function>`. A value that never
//! closes is read the older, loose way ([`loose_end`]), from its call on.
//!
//! The wrapper is a parameter ([`Wrapper`]): Seed-OSS writes the same calls
//! in `<seed:tool_call>` (`seed_oss.rs`).

use std::ops::Range;

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::envelope::HEAD_WINDOW;
use super::scan::{insert_argument, recovered, Out};
use super::stream::markup::{
    after_spaces, could_be, shortest, waiting, End, FirstBytes, Live, Region, Spaces, Streaming, Waits,
};
use super::tags::{scan_tags_with, Finder};
use super::typed;

pub(super) const FUNCTION: &str = "<function=";
const FUNCTION_END: &str = "</function>";
const PARAMETER: &str = "<parameter=";
const PARAMETER_END: &str = "</parameter>";

/// The tokens that wrap a call (`<tool_call>…</tool_call>` for
/// Qwen3-Coder; Seed-OSS writes the same calls in its own), and the tags a
/// call's body is read by.
pub(super) struct Wrapper {
    open: &'static str,
    close: &'static str,
    /// `<function=`, `</function>`, the closing wrapper, `<parameter=`,
    /// `</parameter>`: between values the first four are looked for, inside
    /// one all five (the loose read) or the last two ([`IN_VALUE`], the
    /// strict).
    tags: [&'static str; 5],
    /// The tags' first bytes.
    starts: FirstBytes,
    /// Whether the template writes each value on a line of its own, so
    /// that one line break after the opening tag and one before the closing
    /// tag are markup, not the value's (Qwen3-Coder's; Seed-OSS writes
    /// values inline, and a value's own last line break is kept).
    own_lines: bool,
}

impl Wrapper {
    /// Calls wrapped in `open` … `close`, values on lines of their own when
    /// `own_lines`.
    pub(super) const fn new(open: &'static str, close: &'static str, own_lines: bool) -> Wrapper {
        let tags = [FUNCTION, FUNCTION_END, close, PARAMETER, PARAMETER_END];
        Wrapper {
            open,
            close,
            tags,
            starts: FirstBytes::of_list(&tags),
            own_lines,
        }
    }

    /// A value's text between its tags, without the line breaks the
    /// template puts around it when it writes values on lines of their own.
    fn value<'t>(&self, between: &'t str) -> &'t str {
        if self.own_lines {
            strip_line_breaks(between)
        } else {
            between
        }
    }

    /// The tags looked for between values.
    fn between(&self) -> &[&'static str] {
        self.tags.split_at(4).0
    }
}

/// The token that opens Qwen3-Coder's wrapper.
const QWEN_OPEN: &str = "<tool_call>";

/// Qwen3-Coder's wrapper.
static QWEN: Wrapper = Wrapper::new(QWEN_OPEN, "</tool_call>", true);

pub(super) fn detect(text: &str) -> bool {
    let Some(at) = text.find(FUNCTION) else {
        return false;
    };
    let after = &text[at + FUNCTION.len()..];
    let Some(end) = after.find('>') else {
        return false;
    };
    let body = after[end + 1..].trim_start();
    body.starts_with(PARAMETER) || body.starts_with(FUNCTION_END)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    parse_wrapped(text, out, &QWEN);
}

/// Reads the calls of `text`, each wrapped in `wrapper`'s tokens.
pub(super) fn parse_wrapped(text: &str, out: &mut Out<'_>, wrapper: &'static Wrapper) {
    let mut functions = Finder::new(text, FUNCTION);
    let mut pos = 0;
    let mut loose = false;
    while let Some(start) = functions.from(pos) {
        let mut notes = Vec::new();
        // The <tool_call> wrapper, when the text before the function ends with it.
        let before = text[pos..start].trim_end();
        match before.strip_suffix(wrapper.open) {
            Some(prose) => out.prose.push_str(prose),
            None => {
                out.prose.push_str(&text[pos..start]);
                notes.push(recovered(
                    "missing-open-tag",
                    format!("the {} before <function=…> is missing", wrapper.open),
                ));
            }
        }
        let name_start = start + FUNCTION.len();
        let Some(name_len) = text[name_start..].find(['>', '\n']) else {
            out.not_a_call(FUNCTION, &text[start..], "the name has no end");
            return;
        };
        let name = text[name_start..name_start + name_len].trim();
        let body_start = name_start + name_len + 1;
        let named = is_name(name);
        let schema = out.schema(name).filter(|_| named);
        let properties = properties_of(schema);
        // Once a value never closes, this call and those after it are read
        // the loose way (a stream's region then runs to the end of the text).
        let mut strict = (!loose).then(|| Strict::new(0, wrapper));
        let len = match strict
            .as_mut()
            .map(|strict| strict.end(&text[body_start..], true, properties))
        {
            Some(Read::Call(len)) => len,
            _ => {
                loose = true;
                strict = None;
                loose_end(&text[body_start..], wrapper)
            }
        };
        if !named {
            // Markup around no name (`<function=<<not xml>>`): prose, as ollama
            // keeps it, as far as a call's body would run, with the closing
            // wrapper after it (where a stream's region for it ends).
            let mut end = body_start + len;
            if let Some(rest) = text[end..].trim_start().strip_prefix(wrapper.close) {
                end = text.len() - rest.len();
            }
            out.not_a_call(FUNCTION, &text[start..end], "what it names is not a tool's name");
            pos = end;
            continue;
        }
        let body = &text[body_start..body_start + len];
        let body_end = match body.strip_suffix(FUNCTION_END) {
            Some(body) => body_start + body.len(),
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    "the call's </function> is missing",
                ));
                body_start + len
            }
        };
        pos = body_end;
        if text[pos..].starts_with(FUNCTION_END) {
            pos += FUNCTION_END.len();
        }
        let after = text[pos..].trim_start();
        let unclosed = match after.strip_prefix(wrapper.close) {
            Some(rest) => {
                pos = text.len() - rest.len();
                false
            }
            None => before.ends_with(wrapper.open),
        };
        let params = match strict {
            // Read again as the call's own text reads it (what a stream reads
            // at the call's close): the read went on past a `</tool_call>`.
            Some(strict) if strict.cut.is_some() => {
                let mut again = Strict::new(0, wrapper);
                match again.end(&text[body_start..pos], true, properties) {
                    Read::Call(_) => again.params,
                    _ => loose_params(&text[body_start..body_end], &mut notes),
                }
            }
            Some(strict) => strict.params,
            None => loose_params(&text[body_start..body_end], &mut notes),
        };
        let arguments = arguments(&text[body_start..], &params, schema, wrapper, out, &mut notes);
        if unclosed {
            notes.push(recovered(
                "missing-close-tag",
                format!("the call's {} is missing", wrapper.close),
            ));
        }
        let raw = text[body_start..body_end].to_string();
        out.push(
            name,
            None,
            Ok((Value::Object(arguments), Vec::new())),
            Some(raw),
            notes,
        );
    }
    out.prose.push_str(&text[pos..]);
}

/// Whether `name` can be a tool's name: not empty, and no markup in it.
fn is_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['<', '>'])
}

/// The value without the line break the template puts after the opening
/// tag and before the closing one.
fn strip_line_breaks(value: &str) -> &str {
    let value = value.strip_prefix('\n').unwrap_or(value);
    value.strip_suffix('\n').unwrap_or(value)
}

/// A parameter: where its key and its value are in a call's body.
struct Span {
    key: Range<usize>,
    value: Range<usize>,
}

/// What a read of a call's body found.
enum Read {
    /// Not yet known: more text could decide.
    More,
    /// The body ends here (after its `</function>`, or where the call ends
    /// without it).
    Call(usize),
    /// A value never closed: the body is read the loose way ([`loose_end`]).
    Loose,
}

/// The read of a call's body, vLLM's rule since its parser learned that
/// values hold markup (`test_qwen3_xml_coder_shared.py`: a file that writes
/// tool calls, a template): a `</parameter>` ends its value only when,
/// after spaces, `</function>`, `</tool_call>` or the next `<parameter=`
/// follows it (of a parameter the tool declares, when the tool is known);
/// and a `<parameter=` at the start of a line inside a value opens markup
/// written in the value, whose `</parameter>` is text. Between values the
/// call's tags end the body as [`loose_end`] says. Each decision waits for at
/// most [`HEAD_WINDOW`] bytes after the tag, so a stream holds no more.
struct Strict {
    wrapper: &'static Wrapper,
    /// Where the look for the next tag goes on.
    scanned: usize,
    /// The first `</tool_call>` between values.
    cut: Option<usize>,
    /// The value being read: its key, where it starts, and how many
    /// `<parameter=` written in it are open.
    open: Option<(Range<usize>, usize, usize)>,
    /// The parameters read, in order.
    params: Vec<Span>,
    /// A key too long to be one: the body is read the loose way.
    failed: bool,
}

/// The tags [`Strict`] looks for inside a value.
const IN_VALUE: [&str; 2] = [PARAMETER, PARAMETER_END];

impl Strict {
    /// The read of a body that starts at `body`, in calls wrapped by `wrapper`.
    fn new(body: usize, wrapper: &'static Wrapper) -> Strict {
        Strict {
            wrapper,
            scanned: body,
            cut: None,
            open: None,
            params: Vec::new(),
            failed: false,
        }
    }

    /// Reads on in `text`, from where it stopped; `properties` are the
    /// declared tool's parameters.
    fn end(&mut self, text: &str, done: bool, properties: Option<&Map<String, Value>>) -> Read {
        while !self.failed {
            let tags: &[&str] = if self.open.is_some() {
                &IN_VALUE
            } else {
                self.wrapper.between()
            };
            let (at, which) = match scan_tags_with(text, self.scanned, tags, self.wrapper.starts) {
                Ok(found) => found,
                Err(resume) => {
                    self.scanned = resume;
                    break;
                }
            };
            let tag = tags[which];
            match (&mut self.open, tag) {
                (None, FUNCTION | FUNCTION_END) => return Read::Call(ends_at(self.cut, at, tag)),
                (None, tag) if tag == self.wrapper.close => {
                    self.cut.get_or_insert(at);
                }
                (None, _) => match key_end(text, at + PARAMETER.len(), done) {
                    Follows::Tag(end) => {
                        self.open = Some((at + PARAMETER.len()..end, end + 1, 0));
                        self.scanned = end + 1;
                        continue;
                    }
                    Follows::More => {
                        self.scanned = at;
                        break;
                    }
                    Follows::Text => self.failed = true,
                },
                // Markup written in the value: a <parameter= at a line's start …
                (Some((_, _, depth)), PARAMETER) => {
                    if text.as_bytes()[at - 1] == b'\n' {
                        *depth += 1;
                    }
                }
                // … and the </parameter> that closes it.
                (Some((_, _, depth)), _) if *depth > 0 => *depth -= 1,
                (Some(_), _) => match follows(text, at + PARAMETER_END.len(), done, properties, self.wrapper)
                {
                    Follows::Tag(_) => {
                        let (key, value, _) = self.open.take().expect("a value is open");
                        self.params.push(Span {
                            key,
                            value: value..at,
                        });
                    }
                    Follows::More => {
                        self.scanned = at;
                        break;
                    }
                    Follows::Text => {}
                },
            }
            self.scanned = at + tag.len();
        }
        if !done {
            Read::More
        } else if self.failed || self.open.is_some() {
            Read::Loose
        } else {
            Read::Call(self.cut.unwrap_or(text.len()))
        }
    }

    /// What the read waits for ([`Region::wakes`]).
    fn waits(&self, text: &str) -> Waits {
        if self.failed {
            // Read the Loose way at the end.
            return Waits::bytes(FirstBytes::NONE);
        }
        waiting(
            text,
            self.scanned,
            self.wrapper.starts,
            shortest(self.wrapper.tags),
        )
    }
}

/// What a tag's end or what follows it decides.
enum Follows {
    /// A tag (ending here, for a key).
    Tag(usize),
    /// Text: no tag.
    Text,
    /// Not yet known.
    More,
}

/// The `>` that ends a key starting at `from`, within [`HEAD_WINDOW`] bytes.
fn key_end(text: &str, from: usize, done: bool) -> Follows {
    let window = &text.as_bytes()[from..text.len().min(from + HEAD_WINDOW)];
    match window.iter().position(|&byte| byte == b'>') {
        Some(at) => Follows::Tag(from + at),
        None if !done && text.len() - from < HEAD_WINDOW => Follows::More,
        None => Follows::Text,
    }
}

/// Whether the `</parameter>` ending at `from` closes its value: what
/// follows it after spaces (at most [`HEAD_WINDOW`] of them) is
/// `</function>`, the closing wrapper or a `<parameter=` of a parameter in
/// `properties` (any, when they are not known).
fn follows(
    text: &str,
    from: usize,
    done: bool,
    properties: Option<&Map<String, Value>>,
    wrapper: &Wrapper,
) -> Follows {
    let spaces = text.as_bytes()[from..]
        .iter()
        .take(HEAD_WINDOW + 1)
        .take_while(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    if spaces > HEAD_WINDOW {
        return Follows::Text;
    }
    let at = from + spaces;
    let rest = &text[at..];
    if rest.starts_with(FUNCTION_END) || rest.starts_with(wrapper.close) {
        return Follows::Tag(at);
    }
    if rest.starts_with(PARAMETER) {
        let key_start = at + PARAMETER.len();
        return match key_end(text, key_start, done) {
            Follows::Tag(end) => {
                let key = text[key_start..end].trim();
                if properties.is_none_or(|properties| properties.contains_key(key)) {
                    Follows::Tag(at)
                } else {
                    Follows::Text
                }
            }
            other => other,
        };
    }
    if !done
        && (rest.is_empty()
            || [PARAMETER, FUNCTION_END, wrapper.close]
                .iter()
                .any(|tag| could_be(rest, tag)))
    {
        Follows::More
    } else {
        Follows::Text
    }
}

/// The declared parameters of a tool's input `schema`.
fn properties_of(schema: Option<&Value>) -> Option<&Map<String, Value>> {
    schema?.get("properties")?.as_object()
}

/// The parameters of `body` (the text before its `</function>`) read the
/// loose way: a value ends at its first `</parameter>`, else (noted) at the
/// next `<parameter=`.
fn loose_params(body: &str, notes: &mut Vec<Note>) -> Vec<Span> {
    let mut parameters = Finder::new(body, PARAMETER);
    let mut parameter_ends = Finder::new(body, PARAMETER_END);
    let mut params = Vec::new();
    let mut at = 0;
    while let Some(param) = parameters.from(at) {
        let key_start = param + PARAMETER.len();
        let Some(key_len) = body[key_start..].find('>') else {
            notes.push(recovered(
                "missing-bracket",
                "a <parameter= has no closing >; it was left out",
            ));
            break;
        };
        let key = key_start..key_start + key_len;
        let value_start = key.end + 1;
        let next_param = parameters.from(value_start);
        let value_end = match parameter_ends
            .from(value_start)
            .filter(|&end| end < next_param.unwrap_or(body.len()))
        {
            Some(end) => {
                at = end + PARAMETER_END.len();
                end
            }
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    format!(
                        "the </parameter> of {:?} is missing; its value ends at the next tag",
                        body[key.clone()].trim()
                    ),
                ));
                at = next_param.unwrap_or(body.len());
                at
            }
        };
        params.push(Span {
            key,
            value: value_start..value_end,
        });
    }
    params
}

/// The arguments `params` (places in `body`) give, typed by the tool's
/// input `schema`.
fn arguments(
    body: &str,
    params: &[Span],
    schema: Option<&Value>,
    wrapper: &Wrapper,
    out: &Out<'_>,
    notes: &mut Vec<Note>,
) -> Map<String, Value> {
    let mut arguments = Map::new();
    let mut untyped = Vec::new();
    for param in params {
        let key = body[param.key.clone()].trim().to_string();
        let raw = wrapper.value(&body[param.value.clone()]);
        let property = typed::property(schema, &key);
        // A parameter given twice is named once.
        if property.is_none() && !arguments.contains_key(&key) {
            untyped.push(key.clone());
        }
        let value = typed::value(&key, raw, property, out.limits, notes);
        insert_argument(&mut arguments, key, value, "parameter", notes);
    }
    if !untyped.is_empty() {
        notes.push(Note::new(
            NoteKind::Kept {
                key: untyped.join(", ").into(),
            },
            Pointer::root().key("arguments"),
            format!(
                "no schema types {} ({}); kept as strings",
                if untyped.len() == 1 {
                    "this parameter"
                } else {
                    "these parameters"
                },
                untyped.join(", ")
            ),
        ));
    }
    arguments
}

/// Where a call's body ends when a strict read ([`Strict`]) finds a value
/// never closed (a `</parameter>` missing), for this call and those after
/// it (the loose read): after its `</function>`; before the next
/// `<function=` when that is missing, or before a `</tool_call>` that comes
/// first (a `</function>` after the `</tool_call>`, before the next call,
/// still wins); else at the end of the text. Inside a value the call's tags
/// are text. A value whose `</parameter>` does not come before the next
/// `<parameter=` (or the end of the text) is unclosed: then the first call
/// tag inside it ends the call, as it would outside a value. The next
/// `<parameter=` stops a value's look, so no text is looked at more than
/// twice.
fn loose_end(body: &str, wrapper: &Wrapper) -> usize {
    // The first `</tool_call>` between values; inside a value, the first
    // call tag in it (where, and which), when one came.
    let mut cut = None;
    let mut value: Option<Option<(usize, &str)>> = None;
    let mut scanned = 0;
    loop {
        let tags: &[&str] = if value.is_some() {
            &wrapper.tags
        } else {
            wrapper.between()
        };
        let Ok((at, which)) = scan_tags_with(body, scanned, tags, wrapper.starts) else {
            break;
        };
        let tag = tags[which];
        scanned = at + tag.len();
        match (value, tag) {
            // Between values.
            (None, PARAMETER) => value = Some(None),
            (None, tag) if tag == wrapper.close => {
                cut.get_or_insert(at);
            }
            (None, _) => return ends_at(cut, at, tag),
            // Inside one: its end, the next parameter, a call tag.
            (Some(_), PARAMETER_END) => value = None,
            (Some(Some((first, first_tag))), PARAMETER) => return ends_at(cut, first, first_tag),
            (Some(None), PARAMETER) => {}
            (Some(None), _) => value = Some(Some((at, tag))),
            (Some(Some(_)), _) => {}
        }
    }
    match value {
        Some(Some((first, first_tag))) => ends_at(cut, first, first_tag),
        _ => cut.unwrap_or(body.len()),
    }
}

/// Where a body ends at the call tag `tag` at `at` (`cut`: the first
/// `</tool_call>` between values): after a `</function>`; before the next
/// `<function=` (or the `</tool_call>` before it) or a `</tool_call>`.
fn ends_at(cut: Option<usize>, at: usize, tag: &str) -> usize {
    if tag == FUNCTION_END {
        at + FUNCTION_END.len()
    } else {
        cut.filter(|&cut| cut < at).unwrap_or(at)
    }
}

/// Streamed: a call runs from `<tool_call>` (when `<function=` follows it)
/// or `<function=` to `</function>` and the `</tool_call>` after it; a
/// `<tool_call>` that no `<function=` follows is prose. Parameters are sent
/// as canonical JSON as each `</parameter>` arrives, typed by the schema.
pub(super) const STREAM: Streaming = Streaming {
    opens: &[QWEN_OPEN, FUNCTION],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    region_wrapped(&QWEN, opened_by)
}

/// A call region for calls wrapped by `wrapper`, opened by the first of
/// a family's openers (the wrapper) or the second (`<function=`).
pub(super) fn region_wrapped(wrapper: &'static Wrapper, opened_by: Option<usize>) -> Box<dyn Region> {
    Box::new(Call {
        wrapper,
        wrapped: opened_by == Some(0),
        function: None,
        body: None,
        name: None,
        strict: None,
        sent: 0,
        ended: None,
        spaces: 0,
    })
}

/// One call being read.
struct Call {
    wrapper: &'static Wrapper,
    /// Opened by `<tool_call>`: where its `<function=` is, once seen.
    wrapped: bool,
    function: Option<usize>,
    /// Where the body starts (after the name's `>`).
    body: Option<usize>,
    /// The tool's name, when it is one.
    name: Option<String>,
    strict: Option<Strict>,
    /// How many of the parameters read were sent.
    sent: usize,
    /// The end of `</function>`, when the call ended with it (then a
    /// `</tool_call>` may follow after whitespace).
    ended: Option<usize>,
    spaces: usize,
}

impl Region for Call {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let function = match self.function {
            Some(at) => at,
            None if !self.wrapped => {
                self.function = Some(0);
                0
            }
            None => match after_spaces(text, self.spaces.max(self.wrapper.open.len()), &[FUNCTION], done) {
                (Spaces::Tag(at), _) => {
                    self.function = Some(at);
                    at
                }
                (Spaces::Other(at), _) => return End::Prose(at),
                (Spaces::More(at), _) => {
                    self.spaces = at;
                    return End::More;
                }
            },
        };
        let body = match self.body {
            Some(body) => body,
            None => {
                let name_start = function + FUNCTION.len();
                let from = self.spaces.max(name_start);
                let Some(len) = text[from..].find(['>', '\n']).map(|at| from - name_start + at) else {
                    self.spaces = text.len();
                    return if done { End::Call(text.len()) } else { End::More };
                };
                let name = text[name_start..name_start + len].trim();
                if is_name(name) {
                    live.current().open_canonical(name);
                    self.name = Some(name.to_string());
                }
                self.body = Some(name_start + len + 1);
                name_start + len + 1
            }
        };
        if let Some(end) = self.ended {
            return match after_spaces(text, self.spaces.max(end), &[self.wrapper.close], done) {
                (Spaces::Tag(at), _) => End::Call(at + self.wrapper.close.len()),
                (Spaces::Other(_), _) => End::Call(end),
                (Spaces::More(at), _) => {
                    self.spaces = at;
                    End::More
                }
            };
        }
        let schema = self.name.as_deref().and_then(|name| out.schema(name));
        let properties = properties_of(schema);
        let wrapper = self.wrapper;
        let strict = self.strict.get_or_insert_with(|| Strict::new(body, wrapper));
        let read = strict.end(text, done, properties);
        // Each parameter goes out as the read closes it, typed as the parse types it.
        if let (Some(call), Some(params)) = (live.calls.last_mut(), strict.params.get(self.sent..)) {
            for param in params {
                let key = text[param.key.clone()].trim();
                let raw = self.wrapper.value(&text[param.value.clone()]);
                let property = typed::property(schema, key);
                call.push_parameter(key, typed::value(key, raw, property, out.limits, &mut Vec::new()));
            }
        }
        self.sent = strict.params.len();
        let end = match read {
            Read::More => return End::More,
            Read::Call(end) => end,
            // The parse reads this call and those after it the loose way.
            Read::Loose => return End::Call(text.len()),
        };
        if text[..end].ends_with(FUNCTION_END) {
            self.ended = Some(end);
            self.spaces = end;
            return self.read(text, done, live, out);
        }
        if text[end..].starts_with(self.wrapper.close) {
            return End::Call(end + self.wrapper.close.len());
        }
        End::Call(end)
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        // Inside the body: the function's end (or the next call) and the
        // parameters' tags are all that can change what is read.
        if self.body.is_none() || self.ended.is_some() {
            return None;
        }
        Some(self.strict.as_ref()?.waits(text))
    }
}
