//! The plan in one pass. When all a tool's plan can do happens at the top
//! level — undo the nulls strict mode sends for absent arguments, fill
//! plain defaults (the tool's own, then its schema's) — a call's arguments
//! are changed in one pass, and its notes follow from its outcome alone:
//! the name it was sent under, which nulls were undone, which parameters
//! were filled. The notes of each outcome are written at the first call
//! that has it and shared by every call after (a reference count, not an
//! allocation).
//!
//! The arguments and notes are those of the full plan (the Toolbox's `plan`:
//! [`Restore`], then [`Defaults`], then the schema's [`Fill`]s); the look's
//! property test checks calls both ways.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::note::{Note, SharedNotes};

use super::defaults::Defaults;
use super::plan::{Fill, Restore, Sent, Watched};
use super::Entry;

/// The most outcomes whose notes a tool keeps (a slot each: 24 bytes);
/// a tool with more writes the notes of the rest for each call.
const MAX_KEPT: usize = 256;

/// What the look found that the plan in one pass needs (see
/// [`Look::planned`](super::look::Look::planned)).
pub(super) struct Planned<'t> {
    /// The tool.
    pub(super) entry: &'t Entry,
    /// Its plan.
    pub(super) outcomes: &'t Outcomes,
    /// The watched parameters the arguments send.
    pub(super) sent: Sent,
    /// The note for the name the tool was written under, when the call used it.
    pub(super) renamed: Option<&'t SharedNotes>,
    /// Whether every argument is declared (or needs no note when not).
    pub(super) declares_all: Option<bool>,
}

/// A tool's plan when it can be done in one pass (see the module's
/// documentation), with the notes of the outcomes seen so far.
#[derive(Debug)]
pub(super) struct Outcomes {
    /// The fills in the order the plan applies them, each with its watched
    /// bit and whether it is the schema's (applied only with schema
    /// defaults on): the tool's own plain defaults, then the schema's.
    fills: Vec<(u64, bool, Fill)>,
    /// Each watched parameter's weight in an outcome's slot number when a
    /// null was undone there, and when a default filled it (0: it cannot be).
    undone_weight: [usize; Watched::MAX],
    filled_weight: [usize; Watched::MAX],
    /// How many outcomes there are (the slots, when at most [`MAX_KEPT`]).
    count: usize,
    slots: OnceLock<Box<[OnceLock<SharedNotes>]>>,
}

impl Outcomes {
    /// The one-pass plan of a tool whose plan `watched` sees whole, and that
    /// sets no static parameter (`statics`); `None` for any other.
    pub(super) fn new(
        watched: &Watched,
        defaults: &Defaults,
        schema_defaults: &[Fill],
        statics: bool,
    ) -> Option<Outcomes> {
        if !watched.is_complete() || statics {
            return None;
        }
        let tool_fills = defaults.fills()?.map(|fill| (false, fill));
        let schema_fills = schema_defaults.iter().map(|fill| (true, fill));
        let fills: Vec<(u64, bool, Fill)> = tool_fills
            .chain(schema_fills)
            .map(|(schema, fill)| (watched.bit_of(fill.name()), schema, fill.clone()))
            .collect();
        let fillable = fills.iter().fold(0, |bits, (bit, ..)| bits | bit);
        let mut undone_weight = [0; Watched::MAX];
        let mut filled_weight = [0; Watched::MAX];
        // Slot numbers: the lowest bit says whether the call used a name
        // the tool was written under; each place that can change adds one.
        let mut weight = 2;
        for position in 0..watched.names().count() {
            let bit = 1 << position;
            if watched.nulls() & bit != 0 {
                undone_weight[position] = weight;
                weight *= 2;
            }
            if fillable & bit != 0 {
                filled_weight[position] = weight;
                weight *= 2;
            }
        }
        Some(Outcomes {
            fills,
            undone_weight,
            filled_weight,
            count: weight,
            slots: OnceLock::new(),
        })
    }

    /// Changes `arguments`, of which the look saw `sent`, as the plan
    /// would, and gives the notes: the call used a name the tool was written
    /// under when `renamed` holds that name's note.
    pub(super) fn apply(
        &self,
        watched: &Watched,
        restore: Option<&Restore>,
        arguments: &mut Map<String, Value>,
        sent: Sent,
        schema_defaults: bool,
        renamed: Option<&SharedNotes>,
    ) -> SharedNotes {
        let undone = sent.nulls() & watched.nulls();
        let mut filled = 0;
        // The positions of the nulls no default takes the place of.
        let mut removed = 0u64;
        let mut nulls = sent.null_positions();
        if undone != 0 {
            for (position, (key, value)) in arguments.iter_mut().enumerate() {
                if nulls == 0 {
                    break;
                }
                let at = 1 << position;
                if nulls & at == 0 {
                    continue;
                }
                nulls &= !at;
                let bit = watched.bit_of(key) & undone;
                if bit == 0 {
                    continue;
                }
                match self.fill(bit, schema_defaults) {
                    Some(fill) => {
                        *value = fill.value().clone();
                        filled |= bit;
                    }
                    None => removed |= at,
                }
            }
        }
        let absent = watched.fills(schema_defaults) & !sent.names();
        if absent != 0 {
            for (bit, schema, fill) in &self.fills {
                if bit & absent & !filled != 0 && (schema_defaults || !schema) {
                    arguments.insert(fill.name().to_string(), fill.value().clone());
                    filled |= bit;
                }
            }
        }
        if removed != 0 {
            // Fills are appended past the arguments sent, so the positions
            // of those still hold.
            let mut position = 0;
            arguments.retain(|_, _| {
                let kept = position >= 64 || removed & (1 << position) == 0;
                position += 1;
                kept
            });
        }
        self.notes(&Outcome {
            watched,
            restore,
            renamed,
            undone,
            filled,
        })
    }

    /// The first fill the plan applies for the parameter with `bit`.
    fn fill(&self, bit: u64, schema_defaults: bool) -> Option<&Fill> {
        self.fills
            .iter()
            .find(|(fill_bit, schema, _)| *fill_bit == bit && (schema_defaults || !schema))
            .map(|(.., fill)| fill)
    }

    /// The notes of `outcome`: kept in its slot, written at its first call.
    fn notes(&self, outcome: &Outcome<'_>) -> SharedNotes {
        if outcome.renamed.is_none() && outcome.undone == 0 && outcome.filled == 0 {
            return SharedNotes::new();
        }
        let write = || SharedNotes::from(self.write(outcome));
        if self.count > MAX_KEPT {
            return write();
        }
        let slot = usize::from(outcome.renamed.is_some())
            + weigh(outcome.undone, &self.undone_weight)
            + weigh(outcome.filled, &self.filled_weight);
        let slots = self
            .slots
            .get_or_init(|| (0..self.count).map(|_| OnceLock::new()).collect());
        let kept = slots[slot].get_or_init(write);
        // A tool may be written under more than one name, each with its
        // note: the slot keeps the first name's.
        match outcome.renamed {
            Some(renamed) if kept.first() != renamed.first() => write(),
            _ => kept.clone(),
        }
    }

    /// The notes the full plan makes for `outcome`, in its order: the
    /// name's, the one for the nulls undone, then one per default filled.
    fn write(&self, outcome: &Outcome<'_>) -> Vec<Note> {
        let mut notes: Vec<Note> = outcome
            .renamed
            .into_iter()
            .flat_map(|notes| notes.iter().cloned())
            .collect();
        if let Some(restore) = outcome.restore.filter(|_| outcome.undone != 0) {
            notes.extend(restore.note_where(|name| outcome.watched.bit_of(name) & outcome.undone != 0));
        }
        let mut noted = 0;
        for (bit, _, fill) in &self.fills {
            if bit & outcome.filled & !noted != 0 {
                notes.push(fill.note().clone());
                noted |= bit;
            }
        }
        notes
    }
}

/// What the plan did to one call, which its notes follow from.
struct Outcome<'a> {
    watched: &'a Watched,
    restore: Option<&'a Restore>,
    /// The note of the written name the call used.
    renamed: Option<&'a SharedNotes>,
    /// The watched parameters whose null was undone.
    undone: u64,
    /// The watched parameters a default filled.
    filled: u64,
}

/// The sum of the weights of the watched parameters in `bits`.
fn weigh(mut bits: u64, weights: &[usize; Watched::MAX]) -> usize {
    let mut sum = 0;
    while bits != 0 {
        sum += weights[bits.trailing_zeros() as usize];
        bits &= bits - 1;
    }
    sum
}
