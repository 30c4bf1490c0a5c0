//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::Path;

use toolbridge::{Format, Note};

/// The format a fixture belongs to: its directory name is the format id.
pub fn fixture_format(path: &Path) -> Format {
    let dir = path
        .parent()
        .and_then(|dir| dir.file_name())
        .and_then(|name| name.to_str())
        .expect("fixtures live in a directory named for their format");
    Format::from_id(dir).unwrap_or_else(|err| panic!("fixture directory {dir:?}: {err}"))
}

/// True for a fixture that must fail to read (`err_*`).
pub fn is_error_fixture(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name.starts_with("err_"))
}

/// Notes as stable text lines for snapshots.
pub fn note_lines<'a>(notes: impl IntoIterator<Item = &'a Note>) -> String {
    notes
        .into_iter()
        .map(|note| format!("{} {}: {}\n", note.level, note.at, note.message))
        .collect()
}
