//! The head of a JSON call envelope — `{"name": …, "id": …, "arguments":
//! {…}}` — read before the envelope is whole, so that a stream can announce
//! the call and stream its arguments as the model writes them (as vLLM's
//! Hermes parser does), and the whole-text parse names the call the same way.
//!
//! The rule both follow: when an envelope names its tool before an argument
//! object, within its first [`HEAD_WINDOW`] bytes, the call's name and id
//! are the first ones written before that object. A name or id the envelope
//! writes again, or only after its arguments, does not change them (the
//! parse notes it). Any other envelope (arguments first, arguments as a
//! string, no name, markup that is not JSON) has no head and is read whole.

use std::borrow::Cow;

use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::json::bracket_end;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::tags::floor;

/// The keys a call envelope names its call and id by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EnvelopeKeys {
    /// `name` and `id`.
    Plain,
    /// `name` and `id`, the id written after the arguments, as
    /// mistral-common's `_prepare_function_call` writes it: it is the
    /// call's id all the same (a Mistral list comes whole, not announced).
    Mistral,
    /// Cohere's `tool_name` and `tool_call_id` where `name` and `id` are
    /// absent (Command R7B).
    Cohere,
    /// `name` and `id`, the arguments under `args` (Inkling's `{"name",
    /// "args"}`); `arguments` and `parameters` stand for them too, as vLLM's
    /// `parser/inkling.py` (`_extract_args_value`) takes them.
    Inkling,
}

impl EnvelopeKeys {
    /// What `key` stands for in an envelope named by these keys.
    fn role(self, key: &str) -> Role {
        match (key, self) {
            ("name", _) | ("tool_name", EnvelopeKeys::Cohere) => Role::Name,
            ("id", _) | ("tool_call_id", EnvelopeKeys::Cohere) => Role::Id,
            ("arguments" | "parameters", _) | ("args", EnvelopeKeys::Inkling) => Role::Arguments,
            _ => Role::Other,
        }
    }

    /// `item` with its call named by the plain keys (`name`, `id`,
    /// `arguments`).
    pub(super) fn normalize(self, item: Value) -> Value {
        let renames: &[(&str, &str)] = match self {
            EnvelopeKeys::Plain | EnvelopeKeys::Mistral => return item,
            EnvelopeKeys::Cohere => &[("tool_name", "name"), ("tool_call_id", "id")],
            EnvelopeKeys::Inkling => &[("args", "arguments")],
        };
        let Value::Object(object) = item else {
            return item;
        };
        // Renamed in place (where a key stands says what it names), each
        // only where the plain key is absent.
        let renaming: Vec<(&str, &str)> = renames
            .iter()
            .copied()
            .filter(|(_, plain)| !object.contains_key(*plain))
            .collect();
        let renamed = object
            .into_iter()
            .map(
                |(key, value)| match renaming.iter().find(|(own, _)| *own == key) {
                    Some((_, plain)) => ((*plain).to_string(), value),
                    None => (key, value),
                },
            )
            .collect();
        Value::Object(renamed)
    }
}

/// An envelope whose JSON reads as it stands: `{"name": "…", "arguments":
/// {…}}` (or `"parameters"`), with an optional string `"id"` (or, with
/// [`EnvelopeKeys::Cohere`], `tool_name` and `tool_call_id` in their
/// place); other keys are ignored, as [`Out::call_envelope`] ignores them.
/// Named by the module's rule: the first name and id written before the
/// arguments (what its head says, when it has one), an id after them not
/// used (but for [`EnvelopeKeys::Mistral`]).
///
/// [`Out::call_envelope`]: super::scan::Out::call_envelope
pub(super) struct ExactEnvelope<'t> {
    pub name: String,
    pub id: Option<String>,
    /// An id the envelope gives only after its arguments, not used.
    pub unused_id: Option<String>,
    /// The argument object's text, as written.
    pub arguments: &'t str,
}

/// An envelope as JSON reads it, its arguments unread: each key's value
/// (`[plain, Cohere's]`), and the order that matters.
#[derive(Default)]
struct RawEnvelope<'t> {
    names: [Option<String>; 2],
    ids: [Option<String>; 2],
    /// Under `arguments`, `parameters` and (for [`EnvelopeKeys::Inkling`])
    /// `args`.
    arguments: [Option<&'t RawValue>; 3],
    /// Which name, and which id, came first before the arguments.
    first_name: Option<usize>,
    first_id: Option<usize>,
    /// Which ids came after the arguments.
    late_ids: [bool; 2],
}

/// The keys of an envelope that matter.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "snake_case")]
enum Field {
    Name,
    ToolName,
    Id,
    ToolCallId,
    Arguments,
    Parameters,
    Args,
    #[serde(other)]
    Other,
}

impl<'de: 't, 't> Deserialize<'de> for RawEnvelope<'t> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(RawVisitor(EnvelopeKeys::Plain, std::marker::PhantomData))
    }
}

/// An envelope read as [`RawEnvelope`] with the keys that name its parts
/// (`args` is the arguments only for [`EnvelopeKeys::Inkling`]).
struct KeyedRaw(EnvelopeKeys);

impl<'de> de::DeserializeSeed<'de> for KeyedRaw {
    type Value = RawEnvelope<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(RawVisitor(self.0, std::marker::PhantomData))
    }
}

struct RawVisitor<'t>(EnvelopeKeys, std::marker::PhantomData<&'t ()>);

impl<'de: 't, 't> Visitor<'de> for RawVisitor<'t> {
    type Value = RawEnvelope<'t>;

    fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
        formatter.write_str("a call envelope object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawEnvelope<'t>, A::Error> {
        let mut raw = RawEnvelope::default();
        let mut after_arguments = false;
        // A key given twice is not an envelope as it stands (repair reads it).
        fn once<T, E: de::Error>(slot: &Option<T>, key: &'static str) -> Result<(), E> {
            match slot {
                Some(_) => Err(E::duplicate_field(key)),
                None => Ok(()),
            }
        }
        while let Some(field) = map.next_key::<Field>()? {
            let (names, ids) = (["name", "tool_name"], ["id", "tool_call_id"]);
            match field {
                Field::Name | Field::ToolName => {
                    let which = usize::from(matches!(field, Field::ToolName));
                    once(&raw.names[which], names[which])?;
                    raw.names[which] = Some(map.next_value()?);
                    if !after_arguments {
                        raw.first_name.get_or_insert(which);
                    }
                }
                Field::Id | Field::ToolCallId => {
                    let which = usize::from(matches!(field, Field::ToolCallId));
                    once(&raw.ids[which], ids[which])?;
                    raw.ids[which] = Some(map.next_value()?);
                    if after_arguments {
                        raw.late_ids[which] = true;
                    } else {
                        raw.first_id.get_or_insert(which);
                    }
                }
                Field::Args if self.0 != EnvelopeKeys::Inkling => {
                    map.next_value::<IgnoredAny>()?;
                }
                Field::Arguments | Field::Parameters | Field::Args => {
                    let which = match field {
                        Field::Arguments => 0,
                        Field::Parameters => 1,
                        _ => 2,
                    };
                    once(&raw.arguments[which], ["arguments", "parameters", "args"][which])?;
                    raw.arguments[which] = Some(map.next_value()?);
                    after_arguments = true;
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(raw)
    }
}

impl<'t> ExactEnvelope<'t> {
    /// `json` read as an envelope, or `None` when it is not one as it stands
    /// (repair or another reading is needed).
    pub(super) fn read(json: &'t str, keys: EnvelopeKeys) -> Option<ExactEnvelope<'t>> {
        let mut deserializer = serde_json::Deserializer::from_str(json);
        let raw = de::DeserializeSeed::deserialize(KeyedRaw(keys), &mut deserializer).ok()?;
        deserializer.end().ok()?;
        ExactEnvelope::of(raw, keys)
    }

    /// The items of a list of envelopes that reads as it stands, each an
    /// envelope as it stands; `None` when any part needs repair or another
    /// reading, or the list is empty.
    pub(super) fn list(json: &'t str, keys: EnvelopeKeys) -> Option<Vec<ExactEnvelope<'t>>> {
        // One read of the list, each item's arguments skipped over (read
        // once they are known to be a call's).
        let items: Vec<RawEnvelope<'t>> = serde_json::from_str(json).ok()?;
        if items.is_empty() {
            return None;
        }
        items
            .into_iter()
            .map(|item| ExactEnvelope::of(item, keys))
            .collect()
    }

    /// The envelope, when its arguments are one object under one key.
    fn of(raw: RawEnvelope<'t>, keys: EnvelopeKeys) -> Option<ExactEnvelope<'t>> {
        let arguments = match raw.arguments {
            [Some(one), None, None] | [None, Some(one), None] | [None, None, Some(one)]
                if one.get().starts_with('{') =>
            {
                one.get()
            }
            _ => return None,
        };
        let RawEnvelope {
            names: [name, tool_name],
            ids: [id, tool_call_id],
            first_name,
            first_id,
            late_ids,
            ..
        } = raw;
        Some(match keys {
            EnvelopeKeys::Plain | EnvelopeKeys::Inkling => ExactEnvelope {
                name: name?,
                unused_id: id.clone().filter(|_| late_ids[0]),
                id: id.filter(|_| !late_ids[0]),
                arguments,
            },
            EnvelopeKeys::Mistral => ExactEnvelope {
                name: name?,
                id,
                unused_id: None,
                arguments,
            },
            EnvelopeKeys::Cohere => {
                let name = match first_name {
                    Some(1) => tool_name?,
                    _ => name.or(tool_name)?,
                };
                let late = [&id, &tool_call_id]
                    .into_iter()
                    .zip(late_ids)
                    .find_map(|(id, late)| id.clone().filter(|_| late));
                let id = match first_id {
                    Some(0) => id,
                    Some(_) => tool_call_id,
                    None => None,
                };
                ExactEnvelope {
                    name,
                    id,
                    unused_id: late,
                    arguments,
                }
            }
        })
    }
}

/// How far into an envelope its head may run: a name and an id take far
/// less, and a head that never decides is looked at again on every delta
/// only this far.
pub(super) const HEAD_WINDOW: usize = 512;

/// What the start of an envelope says.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Found {
    /// Not known yet: more text could decide; where the text was cut.
    More(Cut),
    /// The envelope names its tool before an argument object.
    Head(EnvelopeHead),
    /// The envelope has no head (see the module's rule).
    Whole,
}

/// Where the text of a head not decided yet ends, for a stream that waits
/// for what could decide it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// Inside a string (a key or a value): text without its closing quote
    /// reads the same; `escaped` says whether a backslash escapes the next
    /// byte.
    String { escaped: bool },
    /// Elsewhere.
    Other,
}

/// The name and id an envelope writes before its argument object, and where
/// that object starts (at its `{`).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct EnvelopeHead {
    pub name: String,
    pub id: Option<String>,
    pub at: usize,
}

/// The head of the envelope starting `text` (after whitespace), its keys
/// named as `keys` says. `text` may be cut anywhere: [`Found::More`] while
/// it could still decide. Only the first [`HEAD_WINDOW`] bytes are read.
pub(super) fn head(text: &str, keys: EnvelopeKeys) -> Found {
    let window = &text[..floor(text, HEAD_WINDOW)];
    match read_head(window, keys) {
        Read::Head(head) => Found::Head(head),
        Read::Whole => Found::Whole,
        Read::Cut(_) if text.len() > window.len() => Found::Whole,
        Read::Cut(cut) => Found::More(cut),
    }
}

/// Whether an envelope read whole (its keys normalised to `name` and
/// `id`) is a call: an object with a string `name`.
pub(super) fn is_call(envelope: &Value) -> bool {
    envelope.get("name").is_some_and(Value::is_string)
}

/// Keeps, for an envelope read whole after repair (its keys normalised),
/// the rule an envelope read as it stands follows ([`ExactEnvelope`]): an
/// id given after its arguments is noted and not used.
pub(super) fn drop_late_id(envelope: &mut Value, notes: &mut Vec<Note>) {
    let Value::Object(object) = envelope else {
        return;
    };
    let arguments = object
        .keys()
        .position(|key| matches!(key.as_str(), "arguments" | "parameters"));
    let id = object.keys().position(|key| key == "id");
    if let (Some(arguments), Some(id)) = (arguments, id) {
        if id > arguments {
            if let Some(Value::String(id)) = object.get("id") {
                notes.push(unused_id(id));
                object.shift_remove("id");
            }
        }
    }
}

/// Names the envelope `value` (read whole, its keys normalised to `name`
/// and `id`) `name` and `id`, as its head does, noting a name or id it
/// gives differently (again, or after its arguments).
pub(super) fn name_by(value: &mut Value, name: &str, id: Option<&str>, notes: &mut Vec<Note>) {
    let Value::Object(object) = value else {
        return;
    };
    match object.get("name").and_then(Value::as_str) {
        Some(given) if given != name => notes.push(unused("name", given)),
        _ => {}
    }
    object.insert("name".into(), Value::String(name.into()));
    if let Some(given) = object.get("id").and_then(Value::as_str) {
        if Some(given) != id {
            notes.push(unused_id(given));
        }
    }
    match id {
        Some(id) => object.insert("id".into(), Value::String(id.into())),
        None => object.remove("id"),
    };
}

/// The note for an id an envelope gives after its arguments (or again):
/// not used.
pub(super) fn unused_id(id: &str) -> Note {
    unused("id", id)
}

fn unused(key: &str, value: &str) -> Note {
    Note::new(
        NoteKind::Dropped { keyword: key.into() },
        Pointer::root().key(key),
        format!(
            "the envelope's {key} {} was not used: a call keeps the first {key} its envelope \
             gives before its arguments, as a stream announces it when the arguments begin",
            Value::String(value.into())
        ),
    )
}

/// [`head`] within the window.
enum Read {
    Head(EnvelopeHead),
    Whole,
    /// The window ends before the head decides.
    Cut(Cut),
}

/// What one step of the reading met.
enum Step<T> {
    Ok(T),
    Bad,
    Cut(Cut),
}

/// Returns from the enclosing function unless the step read something.
macro_rules! read {
    ($step:expr) => {
        match $step {
            Step::Ok(value) => value,
            Step::Bad => return Read::Whole,
            Step::Cut(cut) => return Read::Cut(cut),
        }
    };
}

fn read_head(text: &str, keys: EnvelopeKeys) -> Read {
    let bytes = text.as_bytes();
    let mut at = spaces(bytes, 0);
    read!(expect(bytes, at, b'{'));
    at += 1;
    // Borrowed from the text until the head decides (most names and keys
    // have no escapes): a head read again as its text grows allocates
    // nothing before then.
    let mut name: Option<Cow<'_, str>> = None;
    let mut id: Option<Cow<'_, str>> = None;
    loop {
        at = spaces(bytes, at);
        let (key, after) = read!(string(text, at));
        at = spaces(bytes, after);
        read!(expect(bytes, at, b':'));
        at = spaces(bytes, at + 1);
        match keys.role(&key) {
            Role::Name => {
                let (value, after) = read!(string(text, at));
                name.get_or_insert(value);
                at = after;
            }
            Role::Id if bytes.get(at) == Some(&b'"') => {
                let (value, after) = read!(string(text, at));
                id.get_or_insert(value);
                at = after;
            }
            Role::Arguments => {
                return match (bytes.get(at), name) {
                    (None, _) => Read::Cut(Cut::Other),
                    (Some(b'{'), Some(name)) => Read::Head(EnvelopeHead {
                        name: name.into_owned(),
                        id: id.map(Cow::into_owned),
                        at,
                    }),
                    _ => Read::Whole,
                };
            }
            Role::Id | Role::Other => at = read!(skip_value(text, at)),
        }
        at = spaces(bytes, at);
        match bytes.get(at) {
            Some(b',') => at += 1,
            Some(_) => return Read::Whole,
            None => return Read::Cut(Cut::Other),
        }
    }
}

/// What an envelope key stands for.
#[derive(Debug, PartialEq, Eq)]
enum Role {
    Name,
    Id,
    Arguments,
    Other,
}

fn spaces(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

fn expect(bytes: &[u8], at: usize, byte: u8) -> Step<()> {
    match bytes.get(at) {
        None => Step::Cut(Cut::Other),
        Some(found) if *found == byte => Step::Ok(()),
        Some(_) => Step::Bad,
    }
}

/// The JSON string at `at`, decoded as JSON reads it, and where it ends.
fn string(text: &str, at: usize) -> Step<(Cow<'_, str>, usize)> {
    let bytes = text.as_bytes();
    match expect(bytes, at, b'"') {
        Step::Ok(()) => {}
        Step::Bad => return Step::Bad,
        Step::Cut(cut) => return Step::Cut(cut),
    }
    let mut end = at + 1;
    let mut escaped = false;
    loop {
        match bytes.get(end) {
            None => return Step::Cut(Cut::String { escaped }),
            Some(b'\\') if !escaped => escaped = true,
            Some(b'"') if !escaped => break,
            Some(_) => escaped = false,
        }
        end += 1;
    }
    let literal = &text[at..=end];
    let decoded = if literal.contains('\\') {
        serde_json::from_str(literal).ok().map(Cow::Owned)
    } else {
        // Control characters are not JSON inside a string.
        (!literal.bytes().any(|byte| byte < 0x20)).then(|| Cow::Borrowed(&literal[1..literal.len() - 1]))
    };
    match decoded {
        Some(value) => Step::Ok((value, end + 1)),
        None => Step::Bad,
    }
}

/// Where the value at `at` (other than the head's) ends.
fn skip_value(text: &str, at: usize) -> Step<usize> {
    let bytes = text.as_bytes();
    match bytes.get(at) {
        None => Step::Cut(Cut::Other),
        Some(b'"') => match string(text, at) {
            Step::Ok((_, end)) => Step::Ok(end),
            Step::Bad => Step::Bad,
            Step::Cut(cut) => Step::Cut(cut),
        },
        Some(b'{' | b'[') => bracket_end(bytes, at).map_or(Step::Cut(Cut::Other), Step::Ok),
        Some(_) => {
            // A number, `true`, `false` or `null`: up to what ends it.
            let end = (at..bytes.len())
                .find(|&index| matches!(bytes[index], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
            end.map_or(Step::Cut(Cut::Other), Step::Ok)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head_of(text: &str) -> Found {
        head(text, EnvelopeKeys::Plain)
    }

    fn found(name: &str, id: Option<&str>, at: usize) -> Found {
        Found::Head(EnvelopeHead {
            name: name.into(),
            id: id.map(str::to_string),
            at,
        })
    }

    #[test]
    fn the_head_is_the_name_and_id_before_the_argument_object() {
        let text = r#" {"name": "get_weather", "arguments": {"city": "Paris"}}"#;
        assert_eq!(head_of(text), found("get_weather", None, 38));
        let text = r#"{"id": "c1", "x": [1, {"}": 2}], "name": "f\u00e9", "parameters": {}}"#;
        assert_eq!(head_of(text), found("fé", Some("c1"), 66));
        // The first name and id count; an id after the arguments is not read.
        let text = r#"{"name": "a", "id": 7, "name": "b", "arguments": {}, "id": "z"}"#;
        assert_eq!(head_of(text), found("a", None, 49));
        let cohere = r#"{"tool_call_id": "0", "tool_name": "f", "parameters": {}}"#;
        assert_eq!(head(cohere, EnvelopeKeys::Cohere), found("f", Some("0"), 54));
        assert_eq!(head_of(cohere), Found::Whole);
        // Inkling's arguments are under `args`, which the plain keys skip.
        let inkling = r#"{"name": "f", "args": {"a": 1}, "arguments": {}}"#;
        assert_eq!(head(inkling, EnvelopeKeys::Inkling), found("f", None, 22));
        assert_eq!(head_of(inkling), found("f", None, 45));
    }

    /// vLLM `parser/inkling.py` (`_extract_args_value`): `args`, else
    /// `arguments` or `parameters`; only Inkling's keys read `args`.
    #[test]
    fn inkling_keys_read_args_as_the_arguments() {
        let text = r#"{"args": {"a": 1}, "name": "f", "id": "c1"}"#;
        let envelope = ExactEnvelope::read(text, EnvelopeKeys::Inkling).unwrap();
        assert_eq!((envelope.name.as_str(), envelope.arguments), ("f", r#"{"a": 1}"#));
        // An id after the arguments is not the call's.
        assert_eq!((envelope.id, envelope.unused_id.as_deref()), (None, Some("c1")));
        assert!(ExactEnvelope::read(text, EnvelopeKeys::Plain).is_none());
        let both = r#"{"name": "f", "args": {}, "arguments": {}}"#;
        assert!(
            ExactEnvelope::read(both, EnvelopeKeys::Inkling).is_none(),
            "two argument objects"
        );
        let value = serde_json::json!({"name": "f", "args": {"a": 1}, "x": 2});
        assert_eq!(
            EnvelopeKeys::Inkling.normalize(value.clone()).to_string(),
            r#"{"name":"f","arguments":{"a":1},"x":2}"#
        );
        assert_eq!(EnvelopeKeys::Plain.normalize(value.clone()), value);
        let given = serde_json::json!({"args": {}, "arguments": {"a": 1}});
        assert_eq!(
            EnvelopeKeys::Inkling.normalize(given.clone()),
            given,
            "`arguments` is kept"
        );
    }

    #[test]
    fn an_envelope_without_a_head_is_read_whole() {
        for text in [
            r#"{"arguments": {}, "name": "f"}"#,
            r#"{"name": "f", "arguments": "{}"}"#,
            r#"{"name": 5, "arguments": {}}"#,
            r#"{"name": "f"}"#,
            r#"[{"name": "f", "arguments": {}}]"#,
            r#"{name: "f", "arguments": {}}"#,
            "{\"name\": \"a\tb\", \"arguments\": {}}",
        ] {
            assert_eq!(head_of(text), Found::Whole, "{text}");
        }
    }

    #[test]
    fn a_cut_head_waits_for_more_within_its_window() {
        let text = r#"{"name": "get_weather", "arguments": {"#;
        for end in 0..text.len() - 1 {
            assert!(
                matches!(head_of(&text[..end]), Found::More(_)),
                "{}",
                &text[..end]
            );
        }
        assert_eq!(head_of(text), found("get_weather", None, 37));
        let long = format!(
            r#"{{"note": "{}", "name": "f", "arguments": {{}}}}"#,
            "x".repeat(600)
        );
        assert_eq!(head_of(&long[..400]), Found::More(Cut::String { escaped: false }));
        assert_eq!(head_of(&long), Found::Whole);
    }
}
