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
    variables: Mutex<Map<String, Value>>,
}

impl Session {
    /// An empty session.
    pub fn new() -> Session {
        Session::default()
    }

    /// The value of variable `name`, if set.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.lock().get(name).cloned()
    }

    /// Sets variable `name` to `value`.
    pub fn set(&self, name: impl Into<String>, value: Value) {
        self.lock().insert(name.into(), value);
    }

    /// Every variable, in the order first set.
    pub fn variables(&self) -> Map<String, Value> {
        self.lock().clone()
    }

    /// The map, even when another thread panicked while holding the lock
    /// (the map is never left half-written: each write is one insert).
    fn lock(&self) -> std::sync::MutexGuard<'_, Map<String, Value>> {
        self.variables
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
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
    }
}
