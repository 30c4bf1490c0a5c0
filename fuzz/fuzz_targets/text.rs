#![no_main]
//! Any text through every family's parser and detection: no panic, no hang;
//! every call's arguments are an object or an error, every note prints.
#[path = "../shared/text_tool.rs"]
mod text_tool;

libfuzzer_sys::fuzz_target!(|text: &str| {
    let tools = [text_tool::text_tool()];
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
