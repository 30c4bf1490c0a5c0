//! The XML invoke markup MiniMax-M2 and DeepSeek V3.2 / V4 (DSML) share:
//! one `<invoke name="NAME">` element per call holding one
//! `<parameter name="KEY">VALUE</parameter>` element per argument, inside a
//! block element the family names (`<minimax:tool_call>`,
//! `<｜DSML｜function_calls>`); Kimi K3 writes the same tree in its own
//! tokens (`<|open|>call tool="NAME"<|sep|>`, heads ended by `<|sep|>`).
//! The calls are found by their invoke elements, so a block whose tokens
//! were lost still gives its calls; the block tokens are taken out of the
//! prose.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::envelope::HEAD_WINDOW;
use super::scan::{delimited_calls, excerpt, insert_argument, push_prose_without, recovered, Out};
use super::stream::markup::{
    parameter_waits, value_end, waiting, End, FirstBytes, Lead, Live, LiveCall, Region, Token, Until,
    ValueEnd, Waits,
};
use super::tags::{find_tag, floor, scan_tags};
use super::typed;

/// One family's spelling of the markup.
pub(super) struct Markup {
    /// The tokens that open and close a block of calls (and any other
    /// token of the wrapper), taken out of the prose.
    pub blocks: &'static [&'static str],
    /// Those of `blocks` that end an invoke element whose end tag was
    /// lost: all but a token that only comes before one (Step3's
    /// `function<｜tool_sep｜>`, whose first byte values hold often).
    pub call_ends: &'static [&'static str],
    /// `<invoke name=` as the family writes it.
    pub invoke: &'static str,
    /// `</invoke>`.
    pub invoke_end: &'static str,
    /// `<parameter name=`.
    pub parameter: &'static str,
    /// `</parameter>`.
    pub parameter_end: &'static str,
    /// What ends an element's head: `>` (Kimi K3: `<|sep|>`).
    pub head_end: &'static str,
    /// Whether attribute values are escaped (`&quot;`, `&amp;`).
    pub escaped: bool,
    /// How a parameter's value is read.
    pub values: Values,
    /// How the invoke element's arguments are written.
    pub arguments: Arguments,
    /// Tokens besides `invoke` that end a streamed invoke element (before
    /// them) whatever follows: the framing around the markup, which the
    /// whole parse never hands it (Muse Glimmer's message tokens). Empty:
    /// `invoke` alone.
    pub stops: &'static [&'static str],
    /// Whether a name written twice around a dot (`get_weather.get_weather`)
    /// is the tool named once, when only that one is known (Muse Glimmer's
    /// template offers a bare tool name as `NAME.*`).
    pub doubled_names: bool,
    /// A header that goes before one of `stops` in the middle of the text,
    /// which the next region takes: a streamed invoke element ends before it
    /// (Muse Glimmer's ` to=NAME<|message|>`).
    pub stop_lead: Option<Lead>,
}

/// How a family writes an invoke element's arguments.
#[derive(Clone, Copy)]
pub(super) enum Arguments {
    /// One `parameter` element per argument, named by an attribute; each
    /// is sent as it closes.
    Named,
    /// The family's own elements (MiniMax-M3's, named by their keys and
    /// nested), read from the text after the invoke's head by the function
    /// given, with the tool's input schema: the arguments are sent whole
    /// when the call closes.
    Read(ReadArguments),
}

/// A reader of an invoke's arguments (see [`Arguments::Read`]): the text
/// after the head, the tool's input schema, the limits, the call's notes.
pub(super) type ReadArguments =
    fn(&str, Option<&Value>, &crate::limits::Limits, &mut Vec<Note>) -> Map<String, Value>;

/// How a family writes a parameter's value.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Values {
    /// Raw text, trimmed, typed by the tool's schema (MiniMax-M2).
    Raw,
    /// `string="true"`: the text as written; `string="false"`: JSON (DSML).
    StringAttribute,
    /// `type="string"`: the text as written; any other type: JSON (Kimi K3).
    TypeAttribute,
    /// XML text: a `<![CDATA[…]]>` section as written, other text trimmed
    /// and its entities (`&lt;`, `&amp;`, `&#10;`) decoded, as an XML
    /// parser reads it; then typed by the tool's schema (MiniCPM5).
    Xml,
    /// Typed by the tool's schema; without one, JSON when the text reads as
    /// JSON, else the text as written (Muse Glimmer's `x-parser: json` with
    /// `allow_non_json`).
    JsonOrText,
}

impl Markup {
    /// An attribute's value at the start of `text` and the rest after it,
    /// unescaped when the family escapes them.
    fn attribute<'t>(&self, text: &'t str) -> (Cow<'t, str>, &'t str) {
        let (value, rest) = attribute(text, self.head_end);
        let value = if self.escaped && value.contains('&') {
            // The reverse of the writer's order (`&` first, then `"`).
            Cow::Owned(value.replace("&quot;", "\"").replace("&amp;", "&"))
        } else {
            Cow::Borrowed(value)
        };
        (value, rest)
    }

    /// The tool a name written twice around a dot names, in a markup that
    /// reads such names ([`Markup::doubled_names`]), when the request's
    /// tools list it and not the doubled name. The parse and the stream
    /// name a call alike.
    fn undoubled<'n>(&self, name: &'n str, out: &Out<'_>) -> Option<&'n str> {
        if !self.doubled_names {
            return None;
        }
        let (head, tail) = name.split_once('.')?;
        (head == tail && out.schema(name).is_none() && out.schema(head).is_some()).then_some(head)
    }

    /// The length of an invoke's head in `body` (the text after its
    /// `invoke` tag: the name attribute, then `head_end`), as the parse and
    /// the stream read it; `None` while the head has no end.
    pub(super) fn head_len(&self, body: &str) -> Option<usize> {
        let (_, rest) = attribute(body, self.head_end);
        find_tag(rest, self.head_end).map(|at| body.len() - rest.len() + at + self.head_end.len())
    }

    /// Whether a parameter's head `attributes` mark its value the text as
    /// written (`Some(true)`) or JSON (`Some(false)`); `None` when they do
    /// not say, and the schema types it.
    fn marked_string(&self, attributes: &str) -> Option<bool> {
        match self.values {
            Values::Raw | Values::Xml | Values::JsonOrText => None,
            Values::StringAttribute => match named_attribute(attributes, "string=", self.head_end)? {
                "true" => Some(true),
                "false" => Some(false),
                _ => None,
            },
            Values::TypeAttribute => Some(named_attribute(attributes, "type=", self.head_end)? == "string"),
        }
    }

    /// The value of the parameter `key` written `raw`, as its head marked it
    /// (`string`, see [`Markup::marked_string`]); unmarked, trimmed and typed
    /// by its `property`'s schema. The whole parse and the stream read a
    /// value alike.
    fn value(
        &self,
        key: &str,
        raw: &str,
        string: Option<bool>,
        property: Option<typed::Property<'_>>,
        out: &Out<'_>,
        notes: &mut Vec<Note>,
    ) -> Value {
        match string {
            Some(true) => Value::String(raw.to_string()),
            Some(false) => json_value(key, raw, property, out, notes, self.values),
            None if self.values == Values::Xml => {
                typed::value(key, &xml_text(raw), property, out.limits, notes)
            }
            None if self.values == Values::JsonOrText && property.is_none() => {
                crate::json::value_of(raw.trim(), out.limits.max_depth)
                    .unwrap_or_else(|| Value::String(raw.to_string()))
            }
            None => typed::value(key, trim_value(raw), property, out.limits, notes),
        }
    }
}

pub(super) fn parse(text: &str, out: &mut Out<'_>, markup: &Markup) {
    delimited_calls(
        text,
        markup.invoke,
        markup.invoke_end,
        out,
        |body| scan_tags(body, 0, markup.call_ends).ok().map(|(at, _)| at),
        |prose, out| push_prose_without(prose, markup.blocks, out),
        |body, whole, out, notes| invoke(body, whole, out, notes, markup),
    );
}

/// An attribute's value at the start of `text` (`"v"`, `'v'` or a bare
/// word, ended by a space or the head's end) and the rest after it.
fn attribute<'t>(text: &'t str, head_end: &str) -> (&'t str, &'t str) {
    let text = text.trim_start();
    for quote in ['"', '\''] {
        if let Some(inner) = text.strip_prefix(quote) {
            return match inner.find(quote) {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => (inner, ""),
            };
        }
    }
    let stop = head_end.chars().next().unwrap_or('>');
    let end = text
        .find(|c: char| c.is_whitespace() || c == stop)
        .unwrap_or(text.len());
    (&text[..end], &text[end..])
}

/// One invoke's body: `"NAME">` and its parameters.
fn invoke(body: &str, whole: &str, out: &mut Out<'_>, mut notes: Vec<Note>, markup: &Markup) {
    let (name, rest) = markup.attribute(body);
    let name = name.trim();
    let Some(head_end) = find_tag(rest, markup.head_end) else {
        let problem = format!("the invoke element has no closing {}", markup.head_end);
        out.not_a_call(markup.invoke, whole, &problem);
        return;
    };
    if name.is_empty() {
        out.not_a_call(markup.invoke, whole, "it names no tool");
        return;
    }
    let name = match markup.undoubled(name, out) {
        Some(once) => {
            notes.push(recovered(
                "doubled-name",
                format!("the tool {name:?} is {once:?}, named twice as the template offers a bare name (`{once}.*`)"),
            ));
            once
        }
        None => name,
    };
    let schema = out.schema(name);
    let mut rest = &rest[head_end + markup.head_end.len()..];
    let raw = body[body.len() - body.trim_start().len()..].to_string();
    if let Arguments::Read(read) = markup.arguments {
        let arguments = read(rest, schema, out.limits, &mut notes);
        out.call_fitted(name, arguments, raw, notes);
        return;
    }
    let mut arguments = Map::new();
    let mut untyped = Vec::new();
    let mut skipped = Vec::new();
    // JSON-or-text values are read without a schema as the markup says, not
    // kept as strings.
    let untyped_as_strings = markup.values != Values::JsonOrText;
    while let Some(at) = find_tag(rest, markup.parameter) {
        skipped.extend(Some(rest[..at].trim()).filter(|text| !text.is_empty()));
        let after = &rest[at + markup.parameter.len()..];
        let (key, attributes) = markup.attribute(after);
        let key = key.into_owned();
        let Some(head_end) = find_tag(attributes, markup.head_end) else {
            notes.push(recovered(
                "missing-bracket",
                format!(
                    "the parameter {key:?} has no closing {}; it was left out",
                    markup.head_end
                ),
            ));
            break;
        };
        let string = markup.marked_string(&attributes[..head_end]);
        let value_text = &attributes[head_end + markup.head_end.len()..];
        let next = find_tag(value_text, markup.parameter).unwrap_or(value_text.len());
        let (raw, next_rest) = match find_tag(&value_text[..next], markup.parameter_end) {
            Some(end) => (
                &value_text[..end],
                &value_text[end + markup.parameter_end.len()..],
            ),
            None => {
                notes.push(recovered(
                    "missing-close-tag",
                    format!(
                        "the {} of {key:?} is missing; its value ends at the next tag",
                        markup.parameter_end
                    ),
                ));
                (value_text[..next].trim_end(), &value_text[next..])
            }
        };
        let property = typed::property(schema, &key);
        // A parameter given twice is named once.
        if untyped_as_strings && string.is_none() && property.is_none() && !arguments.contains_key(&key) {
            untyped.push(key.clone());
        }
        let value = markup.value(&key, raw, string, property, out, &mut notes);
        insert_argument(&mut arguments, key, value, "parameter", &mut notes);
        rest = next_rest;
    }
    skipped.extend(Some(rest.trim()).filter(|text| !text.is_empty()));
    if !skipped.is_empty() {
        // Text among the parameters is no argument: a parameter element
        // without its name, words between elements.
        notes.push(Note::new(
            NoteKind::Dropped {
                keyword: markup.parameter.into(),
            },
            Pointer::root().key("arguments"),
            format!(
                "text among the parameters is no {}…> element and was left out: {}",
                markup.parameter,
                excerpt(&skipped.join(" "))
            ),
        ));
    }
    if !untyped.is_empty() {
        notes.push(typed::untyped(&untyped, "as strings"));
    }
    out.call_fitted(name, arguments, raw, notes);
}

/// The value of the attribute `name` (`string=`, `type=`) among a head's
/// `attributes`.
fn named_attribute<'t>(attributes: &'t str, name: &str, head_end: &str) -> Option<&'t str> {
    let (_, after) = attributes.split_once(name)?;
    Some(attribute(after, head_end).0)
}

/// A value marked JSON (`string="false"`, a `type=` other than `string`):
/// JSON, fitted to the property's schema; text that is not JSON is typed
/// by the schema instead, with a note.
fn json_value(
    key: &str,
    raw: &str,
    property: Option<typed::Property<'_>>,
    out: &Out<'_>,
    notes: &mut Vec<Note>,
    values: Values,
) -> Value {
    match crate::json::value_of(raw.trim(), out.limits.max_depth) {
        Some(value) => value,
        None => {
            notes.push(Note::new(
                NoteKind::Normalized { field: key.into() },
                Pointer::root().key("arguments").key(key),
                format!(
                    "{raw:?} is marked {} but is not JSON; it was read as the schema types it",
                    match values {
                        Values::TypeAttribute => "a JSON value (its type is not \"string\")",
                        _ => "string=\"false\"",
                    }
                ),
            ));
            typed::value(key, raw.trim(), property, out.limits, notes)
        }
    }
}

/// Where the end of a head that starts at `start` and is not whole in
/// `text` is looked for next: where a `head_end` cut by the text's end
/// could start.
fn head_resume(text: &str, start: usize, head_end: &str) -> usize {
    floor(text, text.len().saturating_sub(head_end.len() - 1)).max(start)
}

/// What a reader of a head that starts at `start`, its end looked for from
/// `from`, waits for: the end's first byte, or the head growing past
/// [`HEAD_WINDOW`] (then it is not read as a head).
fn head_waits(text: &str, from: usize, start: usize, head_end: &str) -> Option<Waits> {
    let from = floor(text, from.min(text.len()));
    waiting(text, from, FirstBytes::of_list(&[head_end]), head_end.len())
        .and(Waits::until(start + HEAD_WINDOW + 1))
}

/// MiniMax-M2's value: trimmed, as vLLM's `minimax_m2_tool_parser.py` does.
fn trim_value(raw: &str) -> &str {
    raw.trim()
}

/// An element's text as an XML parser reads it ([`Values::Xml`]): a CDATA
/// section whole is its content as written; other text is trimmed (as
/// vLLM's `minicpm5xml_tool_parser.py` trims it) and its entities decoded
/// (an `&` that starts none stays as written).
fn xml_text(raw: &str) -> Cow<'_, str> {
    let text = raw.trim();
    if let Some(inner) = text
        .strip_prefix("<![CDATA[")
        .and_then(|rest| rest.strip_suffix("]]>"))
    {
        return Cow::Borrowed(inner);
    }
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    let mut decoded = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        decoded.push_str(&rest[..at]);
        rest = &rest[at..];
        // An entity's name is short: its `;` is within the next 11 bytes
        // (both ASCII, so the name between them is whole characters).
        let entity = rest.as_bytes()[1..]
            .iter()
            .take(11)
            .position(|&byte| byte == b';')
            .and_then(|end| Some((entity_char(&rest[1..end + 1])?, end + 2)));
        match entity {
            Some((c, len)) => {
                decoded.push(c);
                rest = &rest[len..];
            }
            None => {
                decoded.push('&');
                rest = &rest[1..];
            }
        }
    }
    decoded.push_str(rest);
    Cow::Owned(decoded)
}

/// The character an XML entity's name (between `&` and `;`) stands for.
fn entity_char(name: &str) -> Option<char> {
    match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                None => number.parse().ok()?,
            };
            char::from_u32(code)
        }
    }
}

/// Streamed: a call runs from its invoke element to `invoke_end` (without
/// it, to a block token or the next invoke); a block token is a region of
/// its own, which the parser removes. `opens` is the invoke prefix, then
/// the block tokens. The call is announced once the invoke element's `>`
/// ends its name, and each parameter goes out as canonical JSON, typed as
/// the parse types it, when its `parameter_end` arrives.
pub(super) fn region(markup: &'static Markup, opened_by: Option<usize>) -> Box<dyn Region> {
    match opened_by {
        Some(0) => Box::new(Invoke {
            markup,
            until: Until::new(
                markup.invoke.len(),
                std::slice::from_ref(&markup.invoke_end),
                match markup.stops {
                    [] => std::slice::from_ref(&markup.invoke),
                    stops => stops,
                },
                markup.call_ends,
            )
            .with_lead(markup.stop_lead),
            name: Name::Looking,
            head_from: markup.invoke.len(),
            parameters: Parameters {
                // Arguments the family reads itself come whole at the close.
                stopped: matches!(markup.arguments, Arguments::Read(_)),
                ..Parameters::default()
            },
        }),
        Some(token) => Box::new(Token(markup.blocks[token - 1].len())),
        None => unreachable!("the invoke markup has no bare form"),
    }
}

/// One invoke element being read.
struct Invoke {
    markup: &'static Markup,
    until: Until,
    name: Name,
    /// While the name is looked for: where its head's end is looked for.
    head_from: usize,
    parameters: Parameters,
}

/// Where the call's name is.
enum Name {
    Looking,
    Known,
    /// No name the parse would read as one: the call comes whole.
    Never,
}

impl Region for Invoke {
    fn read(&mut self, text: &str, done: bool, live: &mut Live, out: &Out<'_>) -> End {
        let end = self.until.end(text, done);
        let limit = self.until.settled_body_end(text, end);
        let text = &text[..limit];
        let open = self.markup.invoke.len();
        if let Name::Looking = self.name {
            // As the parse reads it: the name attribute, ended by the element's `>`.
            let body = &text[open..];
            let (name, rest) = self.markup.attribute(body);
            self.name = match find_tag(rest, self.markup.head_end) {
                Some(head_end) if !name.trim().is_empty() => {
                    // Named as the parse names it: a doubled name once.
                    let name = name.trim();
                    live.current()
                        .open_canonical(self.markup.undoubled(name, out).unwrap_or(name));
                    self.parameters.at = text.len() - rest.len() + head_end + self.markup.head_end.len();
                    Name::Known
                }
                Some(_) => Name::Never,
                None if body.len() > HEAD_WINDOW => Name::Never,
                None => {
                    self.head_from = head_resume(text, open, self.markup.head_end);
                    Name::Looking
                }
            };
        }
        if let (Name::Known, Some(call)) = (&self.name, live.calls.last_mut()) {
            self.parameters.read(text, call, out, self.markup);
        }
        end
    }

    fn wakes(&self, text: &str) -> Option<Waits> {
        let parameters = match self.name {
            Name::Looking => head_waits(
                text,
                self.head_from,
                self.markup.invoke.len(),
                self.markup.head_end,
            )?,
            Name::Known => self.parameters.wakes(text, self.markup),
            Name::Never => Waits::bytes(FirstBytes::NONE),
        };
        self.until.waits(text).and(parameters)
    }
}

/// The parameters of the call being read, sent as each one closes.
#[derive(Default)]
struct Parameters {
    /// Where the next parameter element is looked for.
    at: usize,
    /// The parameter being read: its key, whether DSML marks it a string,
    /// and where its value starts.
    open: Option<(String, Option<bool>, usize)>,
    /// How far its value was looked at for its end.
    scanned: usize,
    /// Whether the rest is left to the parse at the close.
    stopped: bool,
    /// While the head of the parameter at `at` is cut off: where its end
    /// is looked for.
    head_from: Option<usize>,
}

impl Parameters {
    /// The tags the look for the next parameter or the open one's end
    /// waits for ([`Region::wakes`]).
    fn wakes(&self, text: &str, markup: &Markup) -> Waits {
        if self.stopped {
            return Waits::bytes(FirstBytes::NONE);
        }
        if let (None, Some(from)) = (&self.open, self.head_from) {
            if let Some(waits) = head_waits(text, from, self.at, markup.head_end) {
                return waits;
            }
        }
        let value = self.open.as_ref().map(|(_, _, start)| *start);
        parameter_waits(
            text,
            value,
            self.scanned,
            self.at,
            markup.parameter_end,
            markup.parameter,
        )
    }

    /// Adds to `call` the parameters whose end tag is in `text`, each byte
    /// looked at once.
    fn read(&mut self, text: &str, call: &mut LiveCall, out: &Out<'_>, markup: &Markup) {
        let schema = call.name.as_deref().and_then(|name| out.schema(name));
        // A close tag arriving cuts `text` back: the places looked at may
        // have run into its start.
        self.at = self.at.min(text.len());
        self.scanned = self.scanned.min(text.len());
        while !self.stopped {
            let Some((key, string, value_start)) = &self.open else {
                let Some(start) = find_tag(&text[self.at..], markup.parameter).map(|at| self.at + at) else {
                    self.at = floor(text, text.len().saturating_sub(markup.parameter.len())).max(self.at);
                    return;
                };
                let after = &text[start + markup.parameter.len()..];
                let (key, attributes) = markup.attribute(after);
                let Some(head_end) = find_tag(attributes, markup.head_end) else {
                    self.at = start;
                    self.stopped = text.len() - start > HEAD_WINDOW;
                    self.head_from = Some(head_resume(text, start, markup.head_end));
                    return;
                };
                self.head_from = None;
                let value_start = text.len() - attributes.len() + head_end + markup.head_end.len();
                let string = markup.marked_string(&attributes[..head_end]);
                self.open = Some((key.into_owned(), string, value_start));
                self.scanned = value_start;
                continue;
            };
            let value_start = *value_start;
            let end = value_end(
                text,
                &mut self.scanned,
                value_start,
                markup.parameter_end,
                markup.parameter,
            );
            let value_end = match end {
                ValueEnd::At(at) => at,
                ValueEnd::More => return,
                ValueEnd::Missing => {
                    self.stopped = true;
                    return;
                }
            };
            let raw = &text[value_start..value_end];
            let property = typed::property(schema, key);
            let mut notes = Vec::new();
            let value = markup.value(key, raw, *string, property, out, &mut notes);
            call.push_parameter(key, value);
            self.open = None;
            self.at = value_end + markup.parameter_end.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An element's text as lxml reads it (vLLM `minicpm5xml_tool_parser.py`
    /// parses the call with lxml): CDATA as written, entities decoded.
    #[test]
    fn xml_text_decodes_entities_and_keeps_cdata() {
        assert_eq!(xml_text("  <![CDATA[  a &lt; b\n]]> "), "  a &lt; b\n");
        assert_eq!(
            xml_text(" a &lt; b &amp;&#233;&#xE9;&apos;&quot;&gt; "),
            "a < b &éé'\">"
        );
        // Multi-byte text right after an entity; `&` that starts no entity.
        assert_eq!(
            xml_text("&lt;東京&amp東京 &bogus; &#xD800; &"),
            "<東京&amp東京 &bogus; &#xD800; &"
        );
        // The twelfth byte inside a character.
        assert_eq!(xml_text("&lt;abcdefg東"), "<abcdefg東");
        assert!(matches!(xml_text(" plain "), Cow::Borrowed("plain")));
    }
}
