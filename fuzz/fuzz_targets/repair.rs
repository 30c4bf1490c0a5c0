#![no_main]
//! Any text through `call::repair`: no panic, no hang; every note and error prints.
libfuzzer_sys::fuzz_target!(|text: &str| {
    let schema = serde_json::json!({"properties": {"n": {"type": "integer"}, "t": {"type": "array"}}});
    match toolbridge::call::repair(
        text,
        Some(&schema).filter(|_| text.len() % 2 == 0),
        &Default::default(),
    ) {
        Ok(repaired) => repaired.notes.iter().for_each(|note| drop(note.to_string())),
        Err(err) => drop(err.to_string()),
    }
});
