//! Call ids: one per call, unique within a response or a stream.
//!
//! A call the provider sent no id for (Gemini, older Ollama, some
//! OpenAI-compatible servers) gets `<prefix><n>`, `n` being its position
//! among the calls — deterministic, so the same response always gives the
//! same ids. An id the provider sent twice (DeepSeek and GLM reuse one id for
//! parallel calls, and the next request is refused with "Duplicate value for
//! tool_call_id") is made unique with `_2`, `_3`, … and the provider's id is
//! kept beside it, with a note.

use std::collections::{HashMap, HashSet};

use crate::note::{Note, NoteKind};
use crate::pointer::Pointer;

/// The ids given out so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct Ids {
    taken: HashSet<String>,
    /// The next suffix to try per base id, so that many repeats stay linear.
    next_suffix: HashMap<String, usize>,
}

impl Ids {
    /// The id for the call at position `ordinal` whose provider sent `sent`
    /// (`None` or empty: none); notes point at `at`.
    pub fn assign(
        &mut self,
        sent: Option<&str>,
        ordinal: usize,
        prefix: &str,
        at: &Pointer,
        notes: &mut Vec<Note>,
    ) -> String {
        let base = match sent.filter(|id| !id.is_empty()) {
            Some(id) => id.to_string(),
            None => format!("{prefix}{ordinal}"),
        };
        let mut id = base.clone();
        if self.taken.contains(&id) {
            let suffix = self.next_suffix.entry(base.clone()).or_insert(2);
            while self.taken.contains(&id) {
                id = format!("{base}_{suffix}");
                *suffix += 1;
            }
        }
        if id != base {
            if let Some(sent) = sent.filter(|id| !id.is_empty()) {
                notes.push(Note::new(
                    NoteKind::Renamed {
                        from: sent.into(),
                        to: id.as_str().into(),
                    },
                    at.clone(),
                    format!(
                        "the provider gave id {sent:?} to an earlier call too; this call's id is {id:?} \
                         (the provider's id is kept beside it)"
                    ),
                ));
            }
        }
        self.taken.insert(id.clone());
        id
    }

    /// Forgets every id (a new response).
    #[cfg(test)]
    pub fn clear(&mut self) {
        self.taken.clear();
        self.next_suffix.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthesised_ids_are_positional_and_never_collide() {
        let mut ids = Ids::default();
        let mut notes = Vec::new();
        let at = Pointer::root();
        assert_eq!(ids.assign(None, 0, "call_", &at, &mut notes), "call_0");
        assert_eq!(ids.assign(Some(""), 1, "call_", &at, &mut notes), "call_1");
        // A provider id that happens to equal a synthesised one stays unique.
        assert_eq!(
            ids.assign(Some("call_1"), 2, "call_", &at, &mut notes),
            "call_1_2"
        );
        assert_eq!(notes.len(), 1);
        ids.clear();
        assert_eq!(ids.assign(None, 0, "call_", &at, &mut notes), "call_0");
    }

    #[test]
    fn a_reused_id_is_made_unique_with_a_note() {
        let mut ids = Ids::default();
        let mut notes = Vec::new();
        let at = Pointer::root().key("id");
        assert_eq!(ids.assign(Some("x"), 0, "call_", &at, &mut notes), "x");
        assert_eq!(ids.assign(Some("x"), 1, "call_", &at, &mut notes), "x_2");
        assert_eq!(ids.assign(Some("x"), 2, "call_", &at, &mut notes), "x_3");
        assert_eq!(
            notes[1].kind,
            NoteKind::Renamed {
                from: "x".into(),
                to: "x_3".into()
            }
        );
        assert_eq!(notes[0].at.as_str(), "/id");
    }
}
