//! MiniMax-M3: MiniMax-M2's invoke elements with the namespace marker
//! `]<]minimax[>[` before every tag, and each argument an element named by
//! its key (`]<]minimax[>[<city>Paris]<]minimax[>[</city>`) that may hold
//! elements of its own: an object's members, or an array's items (whatever
//! their element names, `<item>` as the model writes them). vLLM's Rust
//! parser (`rust/src/parser/src/tool/minimax_m3.rs`, `parameters.rs`) and
//! its tests (`tests/tool_parsers/test_minimax_m3_tool_parser.py`) are the
//! source.
//!
//! The tool's input schema types the values as for MiniMax-M2
//! ([`typed`]), at every depth: elements under an `array`
//! property are its items, under anything else an object's members (an
//! element given twice gathers its values in a list, as vLLM's parser
//! does); text between an element's children is kept under `$text` (`$$text`
//! when a child is named so). Without a schema the text stays a string and
//! elements make objects. A call is announced at its invoke's head and its
//! arguments come whole when it closes, as vLLM's parser sends them.
//! Reasoning comes in `<mm:think>…</mm:think>` (`reasoning.rs`).

use serde_json::{Map, Value};

use crate::limits::Limits;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::invoke::{self, Arguments, Markup, Values};
use super::scan::{excerpt, insert_argument, recovered, Out};
use super::stream::markup::{Region, Streaming};
use super::tags::find_tag;
use super::typed;

/// The marker before every tag.
const MARK: &str = "]<]minimax[>[";
const INVOKE: &str = "]<]minimax[>[<invoke name=";
/// An element's opening tag up to its name.
const OPEN: &str = "]<]minimax[>[<";
/// An element's closing tag up to its name.
const CLOSE: &str = "]<]minimax[>[</";
/// Where text between an element's children is kept (vLLM's `$text`).
const MIXED_TEXT: &str = "$text";

/// The tool-call block's tokens, taken out of the prose.
const BLOCKS: &[&str] = &["]<]minimax[>[<tool_call>", "]<]minimax[>[</tool_call>"];

static MARKUP: Markup = Markup {
    blocks: BLOCKS,
    call_ends: BLOCKS,
    invoke: INVOKE,
    invoke_end: "]<]minimax[>[</invoke>",
    parameter: OPEN,
    parameter_end: CLOSE,
    head_end: ">",
    escaped: false,
    values: Values::Raw,
    arguments: Arguments::Read(arguments),
    stops: &[],
    doubled_names: false,
    stop_lead: None,
};

pub(super) fn detect(text: &str) -> bool {
    text.contains(INVOKE) || text.contains(BLOCKS[0])
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    invoke::parse(text, out, &MARKUP);
}

/// Streamed: an invoke element is a call's region, announced at its head,
/// its arguments read when it closes; a block token is a region of its own
/// ([`invoke::region`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[INVOKE, "]<]minimax[>[<tool_call>", "]<]minimax[>[</tool_call>"],
    bare: None,
    region,
    lead: None,
};

fn region(opened_by: Option<usize>) -> Box<dyn Region> {
    invoke::region(&MARKUP, opened_by)
}

/// One element as written: its name and what it holds.
struct Element<'t> {
    name: &'t str,
    body: Body<'t>,
}

/// What an element holds.
enum Body<'t> {
    /// Text alone.
    Text(&'t str),
    /// Elements (at least one), and the text between them (kept when it
    /// is not blank).
    Elements(Vec<Element<'t>>, String),
}

/// Reads elements from the text after an invoke's head, keeping what was
/// lost on the way in `notes`.
struct Reader<'t, 'n> {
    rest: &'t str,
    limits: &'t Limits,
    notes: &'n mut Vec<Note>,
    /// The text ended inside an element, or the reading stopped there
    /// (noted once): the elements around it end with it, without a note
    /// each.
    ended: bool,
}

/// The arguments of an invoke whose head ends before `body`: one top-level
/// element per argument, typed by the tool's `schema` ([`Arguments::Read`]).
fn arguments(
    body: &str,
    schema: Option<&Value>,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> Map<String, Value> {
    let mut reader = Reader {
        rest: body,
        limits,
        notes,
        ended: false,
    };
    let mut arguments = Map::new();
    let mut untyped = Vec::new();
    loop {
        reader.rest = reader.rest.trim_start();
        if reader.rest.is_empty() {
            break;
        }
        if !reader.rest.starts_with(OPEN) || reader.rest.starts_with(CLOSE) {
            // vLLM's parser ends the invoke at text that is no element.
            reader.notes.push(recovered(
                "text-after-arguments",
                format!(
                    "{} after the arguments is not an argument element; it was left out",
                    excerpt(reader.rest)
                ),
            ));
            break;
        }
        let Some(element) = reader.element(0) else {
            break;
        };
        let property = typed::property(schema, element.name);
        if property.is_none() && !arguments.contains_key(element.name) {
            untyped.push(element.name.to_string());
        }
        let at = || Pointer::root().key("arguments").key(element.name);
        let value = typed_value(&element.body, element.name, &at, property, limits, reader.notes);
        insert_argument(
            &mut arguments,
            element.name.to_string(),
            value,
            "argument",
            reader.notes,
        );
    }
    if !untyped.is_empty() {
        notes.push(typed::untyped(&untyped, "as the text and elements give them"));
    }
    arguments
}

impl<'t> Reader<'t, '_> {
    /// Nothing more is read.
    fn end(&mut self) {
        self.rest = "";
        self.ended = true;
    }

    /// The element at the start of the text (its opening tag's marker), or
    /// `None` when its opening tag is cut off or names nothing (noted).
    fn element(&mut self, depth: usize) -> Option<Element<'t>> {
        let after = &self.rest[OPEN.len()..];
        let name = match find_tag(after, ">") {
            Some(end) if !after[..end].trim().is_empty() => &after[..end],
            _ => {
                self.notes.push(recovered(
                    "missing-bracket",
                    format!(
                        "{} is no element's opening tag; the arguments end before it",
                        excerpt(self.rest)
                    ),
                ));
                return None;
            }
        };
        let body = &after[name.len() + 1..];
        if depth >= self.limits.max_depth {
            self.notes.push(recovered(
                "too-deep",
                format!(
                    "the element {name:?} is nested deeper than {} elements; the arguments end at it",
                    self.limits.max_depth
                ),
            ));
            self.end();
            return Some(Element {
                name,
                body: Body::Text(""),
            });
        }
        let mut children = Vec::new();
        // The text between the children, and where its next piece starts.
        let (mut between, mut piece) = (String::new(), 0);
        let mut pos = 0;
        loop {
            let Some(mark) = find_tag(&body[pos..], MARK).map(|at| pos + at) else {
                if !self.ended {
                    self.notes.push(recovered(
                        "missing-close-tag",
                        format!("the closing tag of {name:?} is missing; its value ends with the text"),
                    ));
                }
                self.end();
                return Some(element_of(name, body, children, between, piece, body.len()));
            };
            let at_mark = &body[mark..];
            if let Some(closing) = at_mark.strip_prefix(CLOSE) {
                match closing
                    .strip_prefix(name)
                    .and_then(|after| after.strip_prefix('>'))
                {
                    Some(after) => self.rest = after,
                    None => {
                        // Another element's closing tag ends this one too,
                        // and is left for the element it closes.
                        self.notes.push(recovered(
                            "missing-close-tag",
                            format!("the closing tag of {name:?} is missing; its value ends at the next closing tag"),
                        ));
                        self.rest = at_mark;
                    }
                }
                return Some(element_of(name, body, children, between, piece, mark));
            }
            if at_mark.starts_with(OPEN) {
                between.push_str(&body[piece..mark]);
                self.rest = at_mark;
                let Some(child) = self.element(depth + 1) else {
                    self.end();
                    return Some(element_of(name, body, children, between, mark, mark));
                };
                children.push(child);
                pos = body.len() - self.rest.len();
                piece = pos;
                continue;
            }
            // A marker that starts no tag is text.
            pos = mark + MARK.len();
        }
    }
}

/// The element `name` whose `body` ends at `end`: its text, or its
/// `children` and the text `between` them (with the last piece, from
/// `piece`).
fn element_of<'t>(
    name: &'t str,
    body: &'t str,
    children: Vec<Element<'t>>,
    mut between: String,
    piece: usize,
    end: usize,
) -> Element<'t> {
    if children.is_empty() {
        return Element {
            name,
            body: Body::Text(&body[..end]),
        };
    }
    between.push_str(&body[piece..end]);
    Element {
        name,
        body: Body::Elements(children, between),
    }
}

/// The value of an element's `body` at the place `at` gives (written out
/// only for a note), typed by its `property`.
fn typed_value(
    body: &Body<'_>,
    field: &str,
    at: &dyn Fn() -> Pointer,
    property: Option<typed::Property<'_>>,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> Value {
    let types = typed::types(property);
    let (children, text) = match body {
        Body::Text(text) => {
            // An empty element is an empty object or list where one is asked for.
            if text.is_empty() {
                if types.contains(&"object") {
                    return Value::Object(Map::new());
                }
                if types.contains(&"array") {
                    return Value::Array(Vec::new());
                }
            }
            return typed::value_at(at, field, text, property, limits, notes);
        }
        Body::Elements(children, text) => (children, text),
    };
    if types.contains(&"array") && !types.contains(&"object") {
        let items = property.and_then(typed::Property::items);
        let mut values = Vec::with_capacity(children.len());
        for (index, child) in children.iter().enumerate() {
            let item_at = || at().index(index);
            values.push(typed_value(
                &child.body,
                child.name,
                &item_at,
                items,
                limits,
                notes,
            ));
        }
        if !text.trim().is_empty() {
            notes.push(recovered(
                "text-between-items",
                format!(
                    "{} between the items of {field:?} is not an item; it was left out",
                    excerpt(text)
                ),
            ));
        }
        return Value::Array(values);
    }
    if !types.is_empty() && !types.contains(&"object") {
        notes.push(Note::new(
            NoteKind::Normalized { field: field.into() },
            at(),
            format!(
                "{field:?} holds elements, not the {} the schema gives; they were read as an object for validation to report",
                types.join(" or ")
            ),
        ));
    }
    let mut object = Map::with_capacity(children.len());
    for child in children {
        let schema = property.and_then(|property| property.member(child.name));
        let member_at = || at().key(child.name);
        let value = typed_value(&child.body, child.name, &member_at, schema, limits, notes);
        gather(&mut object, child.name, value);
    }
    if !text.trim().is_empty() {
        let mut key = MIXED_TEXT.to_string();
        while object.contains_key(&key) {
            key.insert(0, '$');
        }
        object.insert(key, Value::String(text.clone()));
    }
    Value::Object(object)
}

/// Sets `name` to `value` in `object`; a name given again gathers its
/// values in a list, in order (vLLM's `insert_object_value`).
fn gather(object: &mut Map<String, Value>, name: &str, value: Value) {
    match object.get_mut(name) {
        Some(Value::Array(values)) => values.push(value),
        Some(existing) => {
            let first = existing.take();
            *existing = Value::Array(vec![first, value]);
        }
        None => {
            object.insert(name.to_string(), value);
        }
    }
}
