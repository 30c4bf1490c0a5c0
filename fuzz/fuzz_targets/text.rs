#![no_main]
//! Any text through every family's parser and detection: no panic, no hang;
//! every call's arguments are an object or an error, every note prints.
libfuzzer_sys::fuzz_target!(|text: &str| {
    let tools = [toolbridge::Tool::new(
        "f",
        // Local references, one beside null, one to itself (typed::Property).
        serde_json::json!({
            "properties": {
                "n": {"type": "integer"}, "s": {"type": "string"}, "t": {"type": "array"},
                "r": {"$ref": "#/$defs/r"}, "o": {"anyOf": [{"$ref": "#/$defs/r"}, {"type": "null"}]},
                "l": {"$ref": "#/properties/l"},
            },
            "$defs": {"r": {"type": "object", "properties": {"n": {"$ref": "#/properties/n"}}}},
        }),
    )];
    let _ = toolbridge::text::Family::detect(text);
    for info in toolbridge::text::FAMILIES {
        let tools = Some(&tools[..]).filter(|_| text.len() % 2 == 0);
        let parsed = toolbridge::text::parse(text, info.family, tools).expect("within the size limit");
        for call in &parsed.calls {
            if let Ok(arguments) = &call.arguments {
                assert!(arguments.is_object());
            }
            call.notes.iter().for_each(|note| drop(note.to_string()));
        }
        parsed.notes.iter().for_each(|note| drop(note.to_string()));
    }
});
