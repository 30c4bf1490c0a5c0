//! What checking a call needs from each tool, worked out once when the
//! Toolbox is built or told how its tools were written: the common case, a
//! valid call, then costs little more than its validation.
//!
//! - [`Restore`]: a writer's [`Inverse`] with its top-level "`null` means
//!   absent" places (nearly all of strict mode's rewrites) taken out, to be
//!   undone in one pass over the arguments; the rest goes through
//!   [`Inverse::restore_noting`] as before.
//! - [`Fill`]: an optional parameter's schema `default`, or the tool's own
//!   plain default, with the note that says it was used, written once.
//! - [`NameMap`]: tool names hashed with a fast non-keyed hash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde_json::{Map, Value};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;
use crate::rewrite::{Inverse, Rewrite};

use super::defaults::Defaults;
use super::render::compact;

/// Tool names to an index. The keys are the tools' own names (the host's
/// configuration, not the model's), so a non-keyed hash leaves nothing for
/// a model to flood: a name it sends is only looked up.
pub(super) type NameMap<V> = HashMap<String, V, BuildHasherDefault<NameHasher>>;

/// The multiply-rotate hash of rustc's `FxHasher`, a word at a time: a
/// name is hashed in a few instructions where SipHash takes a hundred.
#[derive(Default)]
pub(super) struct NameHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl NameHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if rest.is_empty() {
            return;
        }
        // The last eight bytes (overlapping the words before) in one load
        // when there are that many; a name's bytes one at a time otherwise.
        let word = match bytes.len().checked_sub(8).and_then(|start| bytes.get(start..)) {
            Some(last) => {
                let mut word = [0; 8];
                word.copy_from_slice(last);
                u64::from_le_bytes(word)
            }
            None => rest
                .iter()
                .rev()
                .fold(0u64, |word, &byte| word << 8 | u64::from(byte)),
        };
        self.add(word);
    }

    fn write_u8(&mut self, byte: u8) {
        self.add(u64::from(byte));
    }

    fn write_usize(&mut self, value: usize) {
        self.add(value as u64);
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits, which pick the bucket, the
        // weakest; rotating brings the strong high bits down (as
        // rustc-hash 2 does).
        self.0.rotate_left(26)
    }
}

/// Whether `map` has `key`: compared in place for the few keys arguments
/// usually have (cheaper than hashing the key with the map's SipHash).
pub(super) fn has_key(map: &Map<String, Value>, key: &str) -> bool {
    if map.len() <= 8 {
        map.keys().any(|present| same_name(present, key))
    } else {
        map.contains_key(key)
    }
}

/// `a == b`, for the short names of parameters: up to 16 bytes are
/// compared as two overlapping words, without a call to `memcmp` (which
/// costs more than the comparison for names this short).
pub(super) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| -> u64 {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    };
    let half = |bytes: &[u8], at: usize| -> u32 {
        let mut half = [0; 4];
        half.copy_from_slice(&bytes[at..at + 4]);
        u32::from_le_bytes(half)
    };
    match a.len() {
        0..=3 => a == b,
        4..=7 => half(a, 0) == half(b, 0) && half(a, a.len() - 4) == half(b, b.len() - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, a.len() - 8) == word(b, b.len() - 8),
        _ => a == b,
    }
}

/// A writer's inverse, ready to undo on arguments.
#[derive(Debug)]
pub(super) struct Restore {
    /// The top-level places where `null` means absent, in the order the
    /// writer recorded them: the key and its place.
    absent: Vec<(String, Pointer)>,
    /// The other rewrites, undone after the nulls (as
    /// [`Inverse::restore_noting`] orders them); `None` when there are none.
    rest: Option<Inverse>,
    /// The note's text up to the places.
    prefix: String,
    /// For each place a `null` may stand for an absent argument at, the
    /// note when that place alone changed (the common case), written once
    /// (the note is at that place).
    single: Vec<Note>,
}

impl Restore {
    /// Splits `inverse`. The top-level nulls are taken out only when every
    /// `NullMeansAbsent` rewrite is top-level, so that the places changed
    /// come in the writer's order.
    pub(super) fn new(inverse: &Inverse) -> Restore {
        let absent: Option<Vec<(String, Pointer)>> = inverse
            .rewrites
            .iter()
            .filter_map(|rewrite| match rewrite {
                Rewrite::NullMeansAbsent { at } => Some(top_level(at)),
                _ => None,
            })
            .collect();
        let (absent, rest) = match absent {
            Some(absent) => {
                let mut rest = inverse.clone();
                rest.rewrites
                    .retain(|rewrite| !matches!(rewrite, Rewrite::NullMeansAbsent { .. }));
                (absent, rest)
            }
            None => (Vec::new(), inverse.clone()),
        };
        let prefix = format!(
            "the arguments were put back into the canonical schema's shape, undoing how the \
             tool was written as `{}` (at ",
            inverse.written_name
        );
        let single = inverse
            .rewrites
            .iter()
            .filter_map(|rewrite| match rewrite {
                Rewrite::NullMeansAbsent { at } if !at.steps().any(|step| step == "**") => {
                    Some(restored(at.clone(), format!("{prefix}{})", shown(at))))
                }
                _ => None,
            })
            .collect();
        Restore {
            absent,
            rest: (!rest.rewrites.is_empty()).then_some(rest),
            prefix,
            single,
        }
    }

    /// Undoes the writer's rewrites, noting the places that changed and
    /// those it could not undo. With `keep_nulls` (and no other rewrite to
    /// undo), the top-level nulls that stand for absent arguments are left
    /// in place, [`Pending`]: a default for the parameter then takes the
    /// null's place instead of being added at the end, and
    /// [`Pending::finish`] removes the rest (one change to the map instead
    /// of a removal and an insertion).
    pub(super) fn apply(
        &self,
        arguments: &mut Map<String, Value>,
        notes: &mut Vec<Note>,
        keep_nulls: bool,
    ) -> Pending<'_> {
        let nulls = self.find_nulls(arguments);
        if nulls.is_empty() && self.rest.is_none() {
            return Pending::none();
        }
        let places = nulls.iter().map(|index| self.absent[index].1.clone());
        let Some(rest) = &self.rest else {
            room_for_first(notes);
            notes.extend(self.note(places));
            if !keep_nulls {
                self.remove_nulls(&nulls, arguments);
                return Pending::none();
            }
            return Pending {
                restore: Some(self),
                nulls,
            };
        };
        let mut changed: Vec<Pointer> = places.collect();
        self.remove_nulls(&nulls, arguments);
        let mut value = Value::Object(std::mem::take(arguments));
        let unrestored = rest.restore_noting(&mut value, &mut changed);
        if let Value::Object(map) = value {
            *arguments = map;
        }
        for problem in unrestored {
            notes.push(Note::new(
                NoteKind::Normalized {
                    field: "arguments".into(),
                },
                problem.at,
                format!(
                    "{}; validation decides whether it is acceptable as sent",
                    problem.message
                ),
            ));
        }
        notes.extend(self.note(changed.into_iter()));
        Pending::none()
    }

    /// Which entries of `absent` the arguments send as `null`.
    fn find_nulls(&self, arguments: &Map<String, Value>) -> Nulls {
        let mut nulls = Nulls::default();
        if self.absent.is_empty() {
            return nulls;
        }
        for (key, value) in arguments.iter() {
            if value.is_null() {
                if let Some(index) = self.absent.iter().position(|(absent, _)| same_name(absent, key)) {
                    nulls.add(index);
                }
            }
        }
        nulls.more.sort_unstable();
        nulls
    }

    /// The note [`Restore::apply`] makes when it undoes the nulls at the
    /// top-level names for which `undone` holds (none when it holds for none).
    pub(super) fn note_where(&self, undone: impl Fn(&str) -> bool) -> Option<Note> {
        // A name listed twice counts at its first place, as `find_nulls` finds it.
        let places = self
            .absent
            .iter()
            .enumerate()
            .filter_map(|(index, (name, place))| {
                let first = !self.absent[..index].iter().any(|(earlier, _)| earlier == name);
                (first && undone(name)).then(|| place.clone())
            });
        self.note(places)
    }

    /// Removes the `nulls` (entries of `absent`) from the arguments.
    fn remove_nulls(&self, nulls: &Nulls, arguments: &mut Map<String, Value>) {
        if !nulls.is_empty() {
            // One pass that keeps the order; removing key by key would hash
            // each key with the map's SipHash and shift the rest each time.
            arguments.retain(|key, value| {
                !(value.is_null() && nulls.iter().any(|index| same_name(&self.absent[index].0, key)))
            });
        }
    }

    /// The note for the places that changed, the first being where it is
    /// (for one place a null may stand at, the note written beforehand).
    fn note(&self, mut places: impl Iterator<Item = Pointer>) -> Option<Note> {
        const LISTED: usize = 8;
        let first = places.next()?;
        let second = places.next();
        if second.is_none() {
            if let Some(note) = self.single.iter().find(|note| note.at == first) {
                return Some(note.clone());
            }
        }
        let mut message = String::with_capacity(self.prefix.len() + 64);
        message.push_str(&self.prefix);
        message.push_str(shown(&first));
        for (count, place) in second.into_iter().chain(places).enumerate() {
            if count + 1 == LISTED {
                message.push_str(", …");
                break;
            }
            message.push_str(", ");
            message.push_str(shown(&place));
        }
        message.push(')');
        Some(restored(first, message))
    }
}

/// The note that arguments were put back into the canonical shape, at
/// `first`, the first place that changed.
fn restored(first: Pointer, message: String) -> Note {
    Note::new(
        NoteKind::Normalized {
            field: "arguments".into(),
        },
        first,
        message,
    )
}

/// A place as notes show it (the root as `/`).
fn shown(place: &Pointer) -> &str {
    if place.is_root() {
        "/"
    } else {
        place.as_str()
    }
}

/// Entries of [`Restore::absent`] the arguments send as `null`, in their
/// order: a bit each for the first 64, listed past them.
#[derive(Default)]
struct Nulls {
    bits: u64,
    more: Vec<usize>,
}

impl Nulls {
    fn add(&mut self, index: usize) {
        match u32::try_from(index) {
            Ok(bit) if bit < 64 => self.bits |= 1 << bit,
            _ => self.more.push(index),
        }
    }

    fn is_empty(&self) -> bool {
        self.bits == 0 && self.more.is_empty()
    }

    fn remove(&mut self, index: usize) {
        match u32::try_from(index) {
            Ok(bit) if bit < 64 => self.bits &= !(1 << bit),
            _ => self.more.retain(|&more| more != index),
        }
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        let mut bits = self.bits;
        std::iter::from_fn(move || {
            let bit = bits.trailing_zeros();
            (bit < 64).then(|| {
                bits &= bits - 1;
                bit as usize
            })
        })
        .chain(self.more.iter().copied())
    }
}

/// The top-level nulls standing for absent arguments that
/// [`Restore::apply`] left in place for a default to take.
pub(super) struct Pending<'r> {
    restore: Option<&'r Restore>,
    nulls: Nulls,
}

impl<'r> Pending<'r> {
    /// Nothing left in place.
    pub(super) fn none() -> Pending<'r> {
        Pending {
            restore: None,
            nulls: Nulls::default(),
        }
    }

    /// Whether the argument `name` is a null left in place (it stops being
    /// one: the caller takes its place).
    fn take(&mut self, name: &str) -> bool {
        let Some(restore) = self.restore else {
            return false;
        };
        let found = self
            .nulls
            .iter()
            .find(|&index| same_name(&restore.absent[index].0, name));
        if let Some(index) = found {
            self.nulls.remove(index);
        }
        found.is_some()
    }

    /// Removes the nulls still left in place.
    pub(super) fn finish(self, arguments: &mut Map<String, Value>) {
        if let Some(restore) = self.restore {
            restore.remove_nulls(&self.nulls, arguments);
        }
    }
}

/// The top-level parameters a tool's plan may change (strict nulls to undo,
/// defaults to fill), so that one look over a call's arguments tells
/// whether the plan has anything to do: most calls send every parameter a
/// default would fill and no null standing for an absent one.
#[derive(Debug, Default)]
pub(super) struct Watched {
    /// At most [`Watched::MAX`] names, each with its bit.
    names: Vec<String>,
    /// The names a `null` may stand for an absent argument at.
    nulls: u64,
    /// The names the tool's own defaults fill when absent.
    fills: u64,
    /// The names their schema's `default` fills when absent.
    schema_fills: u64,
    /// Whether the plan is only the above: no rewrite below the top level,
    /// no transform, no more than [`Watched::MAX`] names. When it is not,
    /// the plan always runs.
    complete: bool,
}

impl Watched {
    /// The most names looked for. Each argument is compared with each
    /// name, so the look stays linear in the arguments.
    pub(super) const MAX: usize = 8;

    /// What `restore` (when the tool was written), the tool's own
    /// `defaults` and its `schema_defaults` look at.
    pub(super) fn new(restore: Option<&Restore>, defaults: &Defaults, schema_defaults: &[Fill]) -> Watched {
        let mut watched = Watched {
            complete: true,
            ..Watched::default()
        };
        let nulls = restore.map(|restore| {
            watched.complete &= restore.rest.is_none();
            restore.absent.iter().map(|(name, _)| name.as_str())
        });
        for name in nulls.into_iter().flatten() {
            watched.nulls |= watched.bit(name);
        }
        match defaults.fills() {
            Some(fills) => {
                for fill in fills {
                    watched.fills |= watched.bit(&fill.name);
                }
            }
            None => watched.complete = false,
        }
        for fill in schema_defaults {
            watched.schema_fills |= watched.bit(&fill.name);
        }
        watched
    }

    /// The bit of `name`, given one if it has none; none past [`Watched::MAX`]
    /// names (the plan is then incomplete).
    fn bit(&mut self, name: &str) -> u64 {
        let index = match self.names.iter().position(|known| known == name) {
            Some(index) => index,
            None if self.names.len() < Self::MAX => {
                self.names.push(name.to_string());
                self.names.len() - 1
            }
            None => {
                self.complete = false;
                return 0;
            }
        };
        1 << index
    }

    /// Whether the plan would leave `arguments` as they are (with the
    /// schema's defaults filled when `schema_defaults`): no watched
    /// parameter is sent as a `null` standing for absent, and every one a
    /// default fills is sent.
    pub(super) fn idle(&self, arguments: &Map<String, Value>, schema_defaults: bool) -> bool {
        // An incomplete plan always runs: nothing to look at.
        if !self.complete {
            return false;
        }
        let mut sent = Sent::default();
        for (key, value) in arguments {
            self.see(key, value, &mut sent);
        }
        self.idle_after(sent, schema_defaults)
    }

    /// Whether the plan is only top-level nulls and plain defaults, on at
    /// most [`Watched::MAX`] names.
    pub(super) fn is_complete(&self) -> bool {
        self.complete
    }

    /// The parameters a `null` may stand for an absent argument at.
    pub(super) fn nulls(&self) -> u64 {
        self.nulls
    }

    /// The watched parameters' names.
    pub(super) fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(String::as_str)
    }

    /// The bit of the watched parameter `name`; 0 when it is not watched.
    pub(super) fn bit_of(&self, name: &str) -> u64 {
        self.names
            .iter()
            .position(|known| same_name(known, name))
            .map_or(0, |index| 1 << index)
    }

    /// Notes in `sent` whether the argument `key: value` is a watched one
    /// (one step of [`Watched::idle`]).
    #[inline]
    fn see(&self, key: &str, value: &Value, sent: &mut Sent) {
        if self.names.is_empty() {
            return;
        }
        if let Some(index) = self.names.iter().position(|name| same_name(name, key)) {
            sent.add(1 << index, value.is_null());
        }
    }

    /// [`Watched::idle`] once every argument was [seen](Watched::see).
    pub(super) fn idle_after(&self, sent: Sent, schema_defaults: bool) -> bool {
        self.complete && sent.nulls & self.nulls == 0 && self.fills(schema_defaults) & !sent.names == 0
    }

    /// The parameters a default fills when absent (the schema's too, when
    /// `schema_defaults`).
    pub(super) fn fills(&self, schema_defaults: bool) -> u64 {
        if schema_defaults {
            self.fills | self.schema_fills
        } else {
            self.fills
        }
    }

    /// How many notes the plan makes for a call that sent `sent`: one for
    /// the nulls undone, one for each default filled (a guess for a plan
    /// that is not [complete](Watched::complete), whose list then grows).
    pub(super) fn notes_after(&self, sent: Sent, schema_defaults: bool) -> usize {
        let nulls = sent.nulls & self.nulls;
        let filled = self.fills(schema_defaults) & (!sent.names | nulls);
        usize::from(nulls != 0) + filled.count_ones() as usize
    }
}

/// The watched parameters a call sends, and those it sends as `null`
/// (see [`Watched::see`]).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sent {
    names: u64,
    nulls: u64,
    /// The positions among the arguments (the first 64) of the watched
    /// ones sent as `null`, where [`Toolbox::look`](super::Toolbox) saw them.
    null_positions: u64,
}

impl Sent {
    /// Notes that the watched parameter with `bit` (see [`Watched::bit_of`])
    /// was sent, as `null` when `null`.
    #[inline]
    pub(super) fn add(&mut self, bit: u64, null: bool) {
        self.names |= bit;
        self.nulls |= if null { bit } else { 0 };
    }

    /// Notes that the argument at `position` is a watched one sent as `null`.
    #[inline]
    pub(super) fn null_at(&mut self, position: usize) {
        if position < 64 {
            self.null_positions |= 1 << position;
        }
    }

    /// The positions of the watched arguments sent as `null` (see [`Sent::null_at`]).
    pub(super) fn null_positions(&self) -> u64 {
        self.null_positions
    }

    /// The watched parameters sent.
    pub(super) fn names(&self) -> u64 {
        self.names
    }

    /// The watched parameters sent as `null`.
    pub(super) fn nulls(&self) -> u64 {
        self.nulls
    }
}

/// The key of a one-step place and the place as a removal there names it
/// (escaped again from the key), or `None` for a deeper or recursive place.
fn top_level(at: &Pointer) -> Option<(String, Pointer)> {
    let mut steps = at.steps();
    let key = steps.next()?;
    if steps.next().is_some() || key == "**" {
        return None;
    }
    Some((key.to_string(), Pointer::root().key(&key)))
}

/// A value set for a parameter the call leaves out, and its note, written
/// once: a schema's `default` or the tool's own plain default.
#[derive(Clone, Debug)]
pub(super) struct Fill {
    name: String,
    value: Value,
    note: Note,
}

impl Fill {
    /// Fills `name` with `value`; the note says where the value came from
    /// (`its schema's default`, `the tool's default`).
    pub(super) fn new(name: &str, value: Value, source: &str) -> Fill {
        let note = Note::new(
            NoteKind::Defaulted { field: name.into() },
            Pointer::root().key(name),
            format!("`{name}` was not given; {source} {} was used", compact(&value)),
        );
        Fill {
            name: name.to_string(),
            value,
            note,
        }
    }

    /// The parameter filled.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// The value it is filled with.
    pub(super) fn value(&self) -> &Value {
        &self.value
    }

    /// The note that says so.
    pub(super) fn note(&self) -> &Note {
        &self.note
    }

    /// Sets the parameter when the arguments leave it out, or in place of
    /// the null left [`Pending`] for it; notes it.
    pub(super) fn apply(
        &self,
        arguments: &mut Map<String, Value>,
        pending: &mut Pending<'_>,
        notes: &mut Vec<Note>,
    ) {
        if pending.take(&self.name) {
            if let Some(slot) = find_mut(arguments, &self.name) {
                *slot = self.value.clone();
            }
        } else if has_key(arguments, &self.name) {
            return;
        } else {
            arguments.insert(self.name.clone(), self.value.clone());
        }
        room_for_first(notes);
        notes.push(self.note.clone());
    }
}

/// Room for exactly one note in a list with none yet. Most calls get one
/// note; a list's first growth would make room for four (288 bytes), which
/// `malloc` serves from its slow bins when many results are alive at once
/// (a batch), while one note (72 bytes) comes from its fast bins: about 190
/// instructions less per call with a strict null undone.
fn room_for_first(notes: &mut Vec<Note>) {
    if notes.capacity() == 0 {
        notes.reserve_exact(1);
    }
}

/// The value of `key`, found as [`has_key`] finds it.
fn find_mut<'m>(map: &'m mut Map<String, Value>, key: &str) -> Option<&'m mut Value> {
    if map.len() <= 8 {
        map.iter_mut()
            .find(|(present, _)| same_name(present, key))
            .map(|(_, value)| value)
    } else {
        map.get_mut(key)
    }
}

/// The optional top-level parameters of `schema` that declare a `default`,
/// in the schema's order. A required one is left out: a default cannot
/// stand in for a value the schema demands.
pub(super) fn schema_defaults(schema: &Value) -> Vec<Fill> {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|required| required.iter().any(|item| item == name))
    };
    properties
        .iter()
        .filter(|(name, _)| !required(name))
        .filter_map(|(name, property)| {
            let value = property.get("default")?.clone();
            Some(Fill::new(name, value, "its schema's default"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn inverse(rewrites: Vec<Rewrite>) -> Inverse {
        Inverse {
            name: "t".into(),
            written_name: "t_w".into(),
            rewrites,
        }
    }

    fn null_at(at: &str) -> Rewrite {
        Rewrite::NullMeansAbsent {
            at: Pointer::parse(at).unwrap(),
        }
    }

    /// The one-pass removal gives what the general walk gives: the same
    /// arguments, the same places in the writer's order, the same note.
    #[test]
    fn top_level_nulls_match_the_general_walk() {
        let mixed = inverse(vec![
            null_at("/b"),
            null_at("/a~1x"),
            null_at("/a"),
            null_at("/nested/c"),
            Rewrite::JsonEncoded {
                at: Pointer::parse("/meta").unwrap(),
                object: true,
            },
        ]);
        let top = inverse(vec![
            null_at("/b"),
            null_at("/a~1x"),
            null_at("/a"),
            null_at("/a"),
        ]);
        let many = inverse(
            (0..70)
                .rev()
                .map(|index| null_at(&format!("/p{index}")))
                .collect(),
        );
        let mut sent = json!({"a": null, "keep": null, "a/x": null, "b": null, "nested": {"c": null},
            "meta": "{\"k\": 1}"});
        for index in 0..70 {
            sent[format!("p{index}")] = if index % 3 == 0 { json!(1) } else { Value::Null };
        }
        for inverse in [mixed, top, many] {
            let restore = Restore::new(&inverse);
            let mut fast = sent.as_object().unwrap().clone();
            let mut notes = Vec::new();
            restore.apply(&mut fast, &mut notes, false);
            let mut slow = sent.clone();
            let mut changed = Vec::new();
            assert!(inverse.restore_noting(&mut slow, &mut changed).is_empty());
            assert_eq!(Value::Object(fast), slow);
            // As the Toolbox listed them before: eight places, then "…".
            let mut places: Vec<String> = changed.iter().take(8).map(Pointer::to_string).collect();
            if changed.len() > 8 {
                places.push("…".into());
            }
            assert_eq!(
                notes[0].message,
                format!(
                    "the arguments were put back into the canonical schema's shape, undoing how the tool \
                     was written as `t_w` (at {})",
                    places.join(", ")
                )
            );
            assert_eq!(notes[0].at, changed[0]);
            assert_eq!(notes.len(), 1);
        }
    }

    /// The plan is idle exactly when it would change nothing.
    #[test]
    fn watched_parameters_tell_when_the_plan_is_idle() {
        let restore = Restore::new(&inverse(vec![null_at("/unit"), null_at("/days")]));
        let schema_defaults = vec![Fill::new("unit", json!("celsius"), "its schema's default")];
        let watched = Watched::new(Some(&restore), &Defaults::default(), &schema_defaults);
        let idle = |arguments: Value, schema_defaults: bool| {
            watched.idle(arguments.as_object().unwrap(), schema_defaults)
        };
        assert!(idle(json!({"city": "Paris", "unit": "celsius", "days": 2}), true));
        assert!(idle(json!({"city": null, "unit": "celsius"}), true));
        // A null standing for an absent argument is undone.
        assert!(!idle(
            json!({"city": "Paris", "unit": "celsius", "days": null}),
            true
        ));
        // A default fills an absent parameter, unless schema defaults are off.
        assert!(!idle(json!({"city": "Paris"}), true));
        assert!(idle(json!({"city": "Paris"}), false));
        // A null that does not stand for absent is sent, so no default fills it.
        let watched = Watched::new(None, &Defaults::default(), &schema_defaults);
        assert!(watched.idle(json!({"unit": null}).as_object().unwrap(), true));
        // Past eight names, or with a deeper rewrite, the plan always runs.
        let many = Restore::new(&inverse(
            (0..9).map(|index| null_at(&format!("/p{index}"))).collect(),
        ));
        let watched = Watched::new(Some(&many), &Defaults::default(), &[]);
        assert!(!watched.idle(json!({"p0": 1}).as_object().unwrap(), true));
        let deep = Restore::new(&inverse(vec![null_at("/a/b")]));
        let watched = Watched::new(Some(&deep), &Defaults::default(), &[]);
        assert!(!watched.idle(json!({"a": {"b": 1}}).as_object().unwrap(), true));
    }

    #[test]
    fn same_name_is_string_equality() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "abc",
            "abd",
            "unit",
            "city",
            "units",
            "style",
            "labels",
            "limit",
            "created",
            "repository",
            "repositorz",
            "xrepository",
            "a_sixteen_bytes!",
            "a_sixteen_bytes?",
            "seventeen_bytes_a",
            "seventeen_bytes_b",
            "é",
            "ée",
            "名前",
        ];
        for a in names {
            for b in names {
                assert_eq!(same_name(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn name_hasher_tells_names_apart() {
        let mut map: NameMap<usize> = NameMap::default();
        for (index, name) in ["get_weather", "get_weathes", "a", "", "github.search_issues"]
            .into_iter()
            .enumerate()
        {
            map.insert(name.to_string(), index);
        }
        assert_eq!(map.get("get_weathes"), Some(&1));
        assert_eq!(map.get(""), Some(&3));
        assert_eq!(map.get("get_weather_"), None);
    }
}
