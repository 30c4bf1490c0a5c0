//! Apertus (Swiss AI): `<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>`,
//! a JSON list of one-key objects, each naming its tool by its key and
//! holding its arguments as the key's value (vLLM `apertus_tool_parser.py`
//! and its tests). The suffix may be missing (the text cut off): the list
//! then ends with its JSON, or with the text. Text after the list is prose.
//! The calls come whole when the list closes.

use serde_json::{Map, Value};

use crate::call::repair;
use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

use super::listed::{json_after_open, notes_per_item};
use super::scan::{excerpt, Out};
use super::stream::markup::{after_spaces, close_after, Brackets, End, Live, Region, Spaces, Streaming};
use super::tags::Finder;

const PREFIX: &str = "<|tools_prefix|>";
const SUFFIX: &str = "<|tools_suffix|>";

pub(super) fn detect(text: &str) -> bool {
    text.contains(PREFIX)
}

pub(super) fn parse(text: &str, out: &mut Out<'_>) {
    let mut prefixes = Finder::new(text, PREFIX);
    let mut pos = 0;
    while let Some(start) = prefixes.from(pos) {
        out.prose.push_str(&text[pos..start]);
        let (json, end, notes) = match json_after_open(text, start, PREFIX, PREFIX.len(), Some(SUFFIX), out) {
            Ok(found) => found,
            Err(resume) => {
                pos = resume;
                continue;
            }
        };
        pos = end;
        let repaired = match repair(json.text, None, out.limits) {
            Ok(repaired) => repaired,
            Err(error) => {
                out.not_a_call(PREFIX, &text[start..pos], &error.to_string());
                continue;
            }
        };
        let (items, listed) = match repaired.value {
            Value::Array(items) => (items, true),
            // vLLM takes one object where the list belongs as the list's item.
            object @ Value::Object(_) => (vec![object], false),
            _ => (Vec::new(), false),
        };
        // An item's key is its call's name, and its value the arguments: a
        // repair under the key is one in the call's arguments.
        let repairs = repaired
            .notes
            .into_iter()
            .map(|note| under_arguments(note, usize::from(listed)))
            .collect();
        let per_item = notes_per_item(repairs, notes, items.len(), listed, out);
        calls(items, per_item, &text[start..pos], out);
    }
    out.prose.push_str(&text[pos..]);
}

/// `note` with the key at `depth` in its place (an item's tool name)
/// written as `arguments`, the key its call's arguments are under.
fn under_arguments(note: Note, depth: usize) -> Note {
    let mut tokens: Vec<String> = note.at.tokens().collect();
    match tokens.get_mut(depth) {
        Some(token) => *token = "arguments".to_string(),
        None => return note,
    }
    let at = tokens.iter().fold(Pointer::root(), |at, token| at.key(token));
    Note::new(note.kind, at, note.message)
}

/// The calls of a list's `items`, each with its `notes`: each a one-key
/// object, its key the tool's name and its value the arguments. An item
/// that is no such object is noted and left out, its notes carried to the
/// next call (or to the text's notes when none follows).
fn calls(items: Vec<Value>, notes: Vec<Vec<Note>>, markup: &str, out: &mut Out<'_>) {
    let mut carried = Vec::new();
    let mut notes = notes.into_iter();
    if items.is_empty() {
        carried = notes.next().unwrap_or_default();
    }
    for (index, item) in items.into_iter().enumerate() {
        carried.extend(notes.next().unwrap_or_default());
        let named = match item {
            Value::Object(object) if object.len() == 1 => object.into_iter().next(),
            _ => None,
        };
        let Some((name, arguments)) = named else {
            out.notes.push(Note::new(
                NoteKind::Dropped {
                    keyword: "item".into(),
                },
                Pointer::root().key(&index.to_string()),
                format!(
                    "item {index} of the list of calls is not a {{\"NAME\": {{arguments}}}} object; it was left out (in {})",
                    excerpt(markup)
                ),
            ));
            continue;
        };
        let mut envelope = Map::new();
        envelope.insert("name".into(), Value::String(name));
        envelope.insert("arguments".into(), arguments);
        let result = out.call_envelope(Value::Object(envelope), std::mem::take(&mut carried));
        debug_assert!(result.is_ok(), "a name and arguments are an envelope");
    }
    out.notes.extend(carried);
}

/// Streamed: the JSON list after the prefix, and the suffix, are a call
/// region whose calls come whole when it closes ([`Tools`]).
pub(super) const STREAM: Streaming = Streaming {
    opens: &[PREFIX],
    bare: None,
    region,
    lead: None,
};

fn region(_: Option<usize>) -> Box<dyn Region> {
    Box::new(Tools {
        brackets: None,
        scanned: PREFIX.len(),
        end: None,
    })
}

/// The list after `<|tools_prefix|>`: found by its brackets, then the
/// suffix when it follows.
struct Tools {
    brackets: Option<Brackets>,
    scanned: usize,
    /// Where the list ended.
    end: Option<usize>,
}

impl Region for Tools {
    fn read(&mut self, text: &str, done: bool, _: &mut Live, _: &Out<'_>) -> End {
        loop {
            if let Some(end) = self.end {
                return close_after(text, end, &mut self.scanned, SUFFIX, done);
            }
            let Some(brackets) = &mut self.brackets else {
                match after_spaces(text, self.scanned, &["[", "{"], done) {
                    (Spaces::Tag(at), _) => {
                        self.brackets = Some(Brackets::new(false));
                        self.scanned = at;
                        continue;
                    }
                    (Spaces::Other(_), _) => return End::Call(PREFIX.len()),
                    (Spaces::More(at), _) => {
                        self.scanned = at;
                        return End::More;
                    }
                }
            };
            match brackets.feed(&text.as_bytes()[self.scanned..]) {
                Some(len) => {
                    self.scanned += len;
                    self.end = Some(self.scanned);
                }
                None => {
                    self.scanned = text.len();
                    return if done { End::Call(text.len()) } else { End::More };
                }
            }
        }
    }
}
