//! Session variables: what `context` tools set, kept for later calls.

use std::sync::Mutex;

use serde_json::{Map, Value};

/// The variables of one conversation (Syllable's session context), set by
/// `context` tools.
///
/// Shared behind an `Arc` by every call of the session; the lock is held only
/// to read or write the map, never across an await.
#[derive(Debug, Default)]
pub struct Session {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    variables: Map<String, Value>,
    /// The size of `variables` as [`size`] counts it.
    bytes: usize,
}

/// Why [`Session::set_all`] set nothing: the session would grow past a limit.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionFull {
    /// It would hold more than `limit` variables.
    Variables {
        /// How many it would hold.
        count: usize,
        /// The limit.
        limit: usize,
    },
    /// Its names and values (as JSON) would take more than `limit` bytes.
    Bytes {
        /// How many bytes they would take.
        size: usize,
        /// The limit.
        limit: usize,
    },
}

impl std::fmt::Display for SessionFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionFull::Variables { count, limit } => write!(
                f,
                "the session would hold {count} variables; the limit is {limit} (max_session_variables)"
            ),
            SessionFull::Bytes { size, limit } => write!(
                f,
                "the session's variables would take {size} bytes; the limit is {limit} (max_session_bytes)"
            ),
        }
    }
}

impl std::error::Error for SessionFull {}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session::default()
    }

    /// The value of variable `name`, if set.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.lock().variables.get(name).cloned()
    }

    /// Sets variable `name` to `value`, with no limit (for the host's own
    /// variables; what a model's call sets goes through
    /// [`set_all`](Session::set_all)).
    pub fn set(&self, name: impl Into<String>, value: Value) {
        let name = name.into();
        let mut state = self.lock();
        let added = size(&name, &value);
        if let Some(old) = state.variables.insert(name.clone(), value) {
            state.bytes -= size(&name, &old);
        }
        state.bytes += added;
    }

    /// Sets every variable of `variables`, or none when the session would
    /// then hold more than `max_variables` variables or more than
    /// `max_bytes` bytes of names and JSON values.
    ///
    /// # Errors
    ///
    /// [`SessionFull`], naming the limit; the session is unchanged.
    pub fn set_all(
        &self,
        variables: &Map<String, Value>,
        max_variables: usize,
        max_bytes: usize,
    ) -> Result<(), SessionFull> {
        let mut state = self.lock();
        let mut count = state.variables.len();
        let mut bytes = state.bytes;
        for (name, value) in variables {
            match state.variables.get(name) {
                Some(old) => bytes -= size(name, old),
                None => count += 1,
            }
            bytes += size(name, value);
        }
        if count > max_variables {
            return Err(SessionFull::Variables {
                count,
                limit: max_variables,
            });
        }
        if bytes > max_bytes {
            return Err(SessionFull::Bytes {
                size: bytes,
                limit: max_bytes,
            });
        }
        for (name, value) in variables {
            state.variables.insert(name.clone(), value.clone());
        }
        state.bytes = bytes;
        Ok(())
    }

    /// Every variable, in the order first set.
    pub fn variables(&self) -> Map<String, Value> {
        self.lock().variables.clone()
    }

    /// How many bytes the names and JSON values take.
    pub fn size(&self) -> usize {
        self.lock().bytes
    }

    /// The state, even when another thread panicked while holding the lock
    /// (it is never left half-written: each write is done in full or not begun).
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// What one variable counts for: its name and its compact JSON.
fn size(name: &str, value: &Value) -> usize {
    name.len() + serde_json::to_string(value).map_or(0, |json| json.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn variables_are_kept_in_order() {
        let session = Session::new();
        session.set("language", json!("fr"));
        session.set("say", json!("bonjour"));
        session.set("language", json!("de"));
        assert_eq!(session.get("language"), Some(json!("de")));
        assert_eq!(
            Value::Object(session.variables()),
            json!({"language": "de", "say": "bonjour"})
        );
        // "language" + "\"de\"", "say" + "\"bonjour\"".
        assert_eq!(session.size(), 12 + 12);
    }

    #[test]
    fn set_all_sets_everything_or_nothing_within_the_limits() {
        let session = Session::new();
        let map = |value: Value| value.as_object().cloned().unwrap();
        session.set_all(&map(json!({"a": 1, "b": 2})), 2, 100).unwrap();
        // Replacing a variable does not count it twice.
        session.set_all(&map(json!({"a": 10})), 2, 100).unwrap();
        assert_eq!(session.size(), 3 + 2);
        assert_eq!(
            session.set_all(&map(json!({"c": 3, "a": 4})), 2, 100),
            Err(SessionFull::Variables { count: 3, limit: 2 })
        );
        assert_eq!(
            session.set_all(&map(json!({"b": "x".repeat(20)})), 2, 20),
            Err(SessionFull::Bytes {
                size: 3 + 23,
                limit: 20
            })
        );
        assert_eq!(Value::Object(session.variables()), json!({"a": 10, "b": 2}));
        assert_eq!(
            SessionFull::Variables { count: 3, limit: 2 }.to_string(),
            "the session would hold 3 variables; the limit is 2 (max_session_variables)"
        );
    }
}
