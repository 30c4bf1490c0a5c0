//! Notes: "output was produced; this is what changed".
//!
//! Readers and writers never drop or rewrite anything silently. Each change
//! becomes a [`Note`] with a kind, a JSON Pointer to the place and a sentence.
//! Writers' pointers point into the canonical [`Tool`](crate::Tool); readers'
//! pointers point into the document that was read.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::Serialize;

use crate::pointer::Pointer;
use crate::rewrite::Rewrite;

/// How much a note matters, from least to most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Nothing changed in meaning (a default filled in, a key kept as is).
    Info,
    /// Something was rewritten, and the meaning was kept.
    Change,
    /// Something the input said is not in the output.
    Loss,
    /// The output would be rejected by the target (a limit or rule it enforces).
    Error,
}

impl Level {
    /// The lowercase name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Change => "change",
            Level::Loss => "loss",
            Level::Error => "error",
        }
    }

    /// Parses a level name (`info`, `change`, `loss`, `error`).
    pub fn from_name(name: &str) -> Option<Level> {
        [Level::Info, Level::Change, Level::Loss, Level::Error]
            .into_iter()
            .find(|level| level.name() == name)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What happened, with the details a program may want to act on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
#[non_exhaustive]
pub enum NoteKind {
    /// A keyword or field was left out of the output.
    Dropped {
        /// The keyword or field name.
        keyword: SharedStr,
    },
    /// A keyword the target cannot enforce was written into the description.
    MovedToDescription {
        /// The keyword.
        keyword: SharedStr,
    },
    /// A field the target lacks was stored under `_meta` (MCP) or a similar slot.
    MovedToMeta {
        /// The key it was stored under.
        key: SharedStr,
    },
    /// An optional property was listed in `required` (strict mode).
    MadeRequired {
        /// The property name.
        property: SharedStr,
    },
    /// `null` was added to a property's type, so that "absent" can be sent as `null`.
    MadeNullable {
        /// The property name.
        property: SharedStr,
    },
    /// A name was changed to fit the target's rules.
    Renamed {
        /// The name before.
        from: SharedStr,
        /// The name after.
        to: SharedStr,
    },
    /// A `$ref` was replaced by the schema it points to.
    Inlined {
        /// The reference that was expanded.
        reference: SharedStr,
    },
    /// A construct was expressed differently, with the same meaning.
    Rewritten {
        /// The keyword or construct that was rewritten.
        keyword: SharedStr,
    },
    /// A value was converted to another type.
    Coerced {
        /// The type before.
        from: SharedStr,
        /// The type after.
        to: SharedStr,
    },
    /// A value the input left out was filled in.
    Defaulted {
        /// The field that was filled in.
        field: SharedStr,
    },
    /// Sloppy but understandable input was accepted and normalised.
    Normalized {
        /// The field that was normalised.
        field: SharedStr,
    },
    /// A key this format does not define was kept as it is.
    Kept {
        /// The key.
        key: SharedStr,
    },
    /// Something the target needs but the tool lacks was written as a placeholder.
    Placeholder {
        /// The field that holds the placeholder.
        field: SharedStr,
    },
    /// The output exceeds a limit the target enforces; the target will reject it.
    OverLimit {
        /// The limit, as a short phrase (`"64 characters"`).
        limit: SharedStr,
    },
    /// The target accepts the output, but some receivers of the same shape
    /// refuse it (Azure OpenAI and proxies with an OpenAI request).
    NotPortable {
        /// Who refuses it, as a short phrase (`"Azure OpenAI"`).
        refused_by: SharedStr,
    },
    /// The output uses something the target rejects and toolbridge cannot rewrite.
    Unsupported {
        /// The keyword or feature.
        keyword: SharedStr,
    },
    /// Malformed input (a model's argument JSON) was repaired.
    Repaired {
        /// The repair, a short kebab-case name (`trailing-comma`, `truncated`, …).
        fix: SharedStr,
    },
}

impl NoteKind {
    /// The fixed level of this kind of note.
    pub fn level(&self) -> Level {
        match self {
            NoteKind::Dropped { .. } => Level::Loss,
            NoteKind::MovedToDescription { .. }
            | NoteKind::MadeRequired { .. }
            | NoteKind::MadeNullable { .. }
            | NoteKind::Renamed { .. }
            | NoteKind::Inlined { .. }
            | NoteKind::Rewritten { .. }
            | NoteKind::Coerced { .. }
            | NoteKind::Placeholder { .. }
            | NoteKind::Repaired { .. } => Level::Change,
            NoteKind::MovedToMeta { .. }
            | NoteKind::Defaulted { .. }
            | NoteKind::Normalized { .. }
            | NoteKind::Kept { .. }
            | NoteKind::NotPortable { .. } => Level::Info,
            NoteKind::OverLimit { .. } | NoteKind::Unsupported { .. } => Level::Error,
        }
    }
}

/// One change or loss, at one place.
///
/// Its [level](Note::level) follows from its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// What happened.
    pub kind: NoteKind,
    /// Where: in the canonical tool (writers) or in the input document (readers).
    pub at: Pointer,
    /// A plain sentence saying what happened and why.
    pub message: SharedStr,
}

impl Note {
    /// A note of `kind` at `at`.
    pub fn new(kind: NoteKind, at: Pointer, message: impl Into<SharedStr>) -> Note {
        Note {
            kind,
            at,
            message: message.into(),
        }
    }

    /// The level of the note, fixed by its kind.
    pub fn level(&self) -> Level {
        self.kind.level()
    }
}

/// The JSON form: the kind's tag and fields, then `level`, `at`, `message`.
impl Serialize for Note {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Flat<'a> {
            #[serde(flatten)]
            kind: &'a NoteKind,
            level: Level,
            at: &'a Pointer,
            message: &'a str,
        }
        Flat {
            kind: &self.kind,
            level: self.level(),
            at: &self.at,
            message: &self.message,
        }
        .serialize(serializer)
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (at {})", self.level(), self.message, self.at)
    }
}

/// The notes collected while reading or writing, and — for a writer — the
/// meaning-changing rewrites a call coming back must undo.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Notes {
    notes: Vec<Note>,
    /// Rewrites, each with the pointer of the schema it was made in
    /// (`/inputSchema`, `/outputSchema`).
    #[serde(skip)]
    rewrites: Vec<(Pointer, Rewrite)>,
}

impl Notes {
    /// No notes yet.
    pub fn new() -> Notes {
        Notes::default()
    }

    /// Adds a note.
    pub fn push(&mut self, kind: NoteKind, at: Pointer, message: impl Into<SharedStr>) {
        self.notes.push(Note::new(kind, at, message));
    }

    /// Adds every note (and recorded rewrite) of `other`.
    pub fn extend(&mut self, other: Notes) {
        self.notes.extend(other.notes);
        self.rewrites.extend(other.rewrites);
    }

    /// The notes, in the order they were made.
    pub fn as_slice(&self) -> &[Note] {
        &self.notes
    }

    /// The number of notes.
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// True when there are no notes.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// The notes as a vector.
    pub fn into_vec(self) -> Vec<Note> {
        self.notes
    }

    /// Iterates over the notes.
    pub fn iter(&self) -> std::slice::Iter<'_, Note> {
        self.notes.iter()
    }

    /// Records a rewrite made while lowering the schema at `schema` (once:
    /// the same rewrite met again through another branch is not repeated).
    pub(crate) fn record(&mut self, schema: &Pointer, rewrite: Rewrite) {
        let entry = (schema.clone(), rewrite);
        if !self.rewrites.contains(&entry) {
            self.rewrites.push(entry);
        }
    }

    /// How many rewrites were recorded so far (a mark for
    /// [`Notes::rewrites_since`]).
    pub(crate) fn rewrite_count(&self) -> usize {
        self.rewrites.len()
    }

    /// The rewrites recorded since `mark` in the schema at `schema`.
    pub(crate) fn rewrites_since(&self, mark: usize, schema: &Pointer) -> Vec<Rewrite> {
        self.rewrites
            .get(mark..)
            .unwrap_or_default()
            .iter()
            .filter(|(at, _)| at == schema)
            .map(|(_, rewrite)| rewrite.clone())
            .collect()
    }

    /// The notes, and the rewrites made in the schema at `schema`.
    pub(crate) fn into_parts(self, schema: &Pointer) -> (Vec<Note>, Vec<Rewrite>) {
        let rewrites = self
            .rewrites
            .into_iter()
            .filter(|(at, _)| at == schema)
            .map(|(_, rewrite)| rewrite)
            .collect();
        (self.notes, rewrites)
    }
}

impl IntoIterator for Notes {
    type Item = Note;
    type IntoIter = std::vec::IntoIter<Note>;
    fn into_iter(self) -> Self::IntoIter {
        self.notes.into_iter()
    }
}

impl<'a> IntoIterator for &'a Notes {
    type Item = &'a Note;
    type IntoIter = std::slice::Iter<'a, Note>;
    fn into_iter(self) -> Self::IntoIter {
        self.notes.iter()
    }
}

/// A value together with the notes made while producing it.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted<T> {
    /// The output.
    pub value: T,
    /// What changed on the way.
    pub notes: Vec<Note>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_order_and_names() {
        assert!(Level::Error > Level::Loss && Level::Loss > Level::Change);
        assert_eq!(Level::from_name("loss"), Some(Level::Loss));
        assert_eq!(Level::from_name("bad"), None);
    }

    #[test]
    fn note_json_form_is_flat() {
        let note = Note::new(
            NoteKind::Dropped {
                keyword: "minimum".into(),
            },
            Pointer::root().key("inputSchema"),
            "gemini has no minimum",
        );
        assert_eq!(
            serde_json::to_value(&note).unwrap(),
            serde_json::json!({"kind": "dropped", "keyword": "minimum", "level": "loss",
                "at": "/inputSchema", "message": "gemini has no minimum"})
        );
    }
}

/// A string that is cloned without copying: a note's words. A Toolbox
/// writes the notes it may give once, and every call they apply to gets a
/// clone (a reference count, not an allocation).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for SharedStr {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<String> for SharedStr {
    fn from(text: String) -> SharedStr {
        SharedStr(text.into())
    }
}

impl From<&String> for SharedStr {
    fn from(text: &String) -> SharedStr {
        SharedStr(text.as_str().into())
    }
}

impl From<&str> for SharedStr {
    fn from(text: &str) -> SharedStr {
        SharedStr(text.into())
    }
}

impl From<std::borrow::Cow<'_, str>> for SharedStr {
    fn from(text: std::borrow::Cow<'_, str>) -> SharedStr {
        SharedStr(text.into())
    }
}

impl From<SharedStr> for String {
    fn from(text: SharedStr) -> String {
        text.0.to_string()
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<SharedStr> for str {
    fn eq(&self, other: &SharedStr) -> bool {
        self == &*other.0
    }
}

impl PartialEq<SharedStr> for &str {
    fn eq(&self, other: &SharedStr) -> bool {
        *self == &*other.0
    }
}

impl PartialEq<SharedStr> for String {
    fn eq(&self, other: &SharedStr) -> bool {
        **self == *other.0
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl Serialize for SharedStr {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// Notes that are cloned without copying: an accepted call's. A Toolbox
/// writes the notes of each way its plan for a tool can change a call once,
/// and every call changed that way gets a clone (a reference count, not an
/// allocation). It derefs to the notes as a slice.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct SharedNotes(Option<Arc<[Note]>>);

impl SharedNotes {
    /// No notes (nothing is allocated).
    pub fn new() -> SharedNotes {
        SharedNotes(None)
    }
}

impl Deref for SharedNotes {
    type Target = [Note];

    fn deref(&self) -> &[Note] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl From<Vec<Note>> for SharedNotes {
    fn from(notes: Vec<Note>) -> SharedNotes {
        SharedNotes((!notes.is_empty()).then(|| notes.into()))
    }
}

impl<'a> IntoIterator for &'a SharedNotes {
    type Item = &'a Note;
    type IntoIter = std::slice::Iter<'a, Note>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl fmt::Debug for SharedNotes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// The JSON form: a list of notes.
impl Serialize for SharedNotes {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}
