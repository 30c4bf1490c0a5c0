#![no_main]
//! Any text, cut anywhere (at char boundaries), through every family's
//! stream and through detection while streaming: no panic, no hang; every
//! started call finishes once, under the id and name it started with, and
//! the calls and the prose are those of the whole-text parse (apart from a
//! lone closing reasoning tag after a call, which the stream notes); `push_reusing` sends
//! the events `push` sends, and (for an odd first cut) a stream without the
//! arguments' changes sends them with their changes left out. For an even
//! number of cuts the calls are typed by a tool's schema.
#[path = "../shared/text_tool.rs"]
mod text_tool;

libfuzzer_sys::fuzz_target!(|input: (&str, Vec<u8>)| {
    let (text, cuts) = input;
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|cut| {
            let mut at = *cut as usize * text.len() / 255;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .chain([0, text.len()])
        .collect();
    at.sort_unstable();
    at.dedup();
    // For an even number of cuts, the calls are typed by a tool's schema.
    let tool = [text_tool::text_tool()];
    let tools = Some(&tool[..]).filter(|_| cuts.len() % 2 == 0);
    let families = toolbridge::text::FAMILIES
        .iter()
        .map(|info| Some(info.family))
        .chain([None]);
    for family in families {
        let mut stream = toolbridge::text::TextStream::new(family, tools);
        let mut events = Vec::new();
        // The same text again through `push_reusing`, each piece's events
        // copied out before the next piece reuses their buffers.
        let changes = cuts.first().is_none_or(|cut| cut % 2 == 0);
        let mut reusing = toolbridge::text::TextStream::new(family, tools).send_changes(changes);
        let mut reused = Vec::new();
        let mut piece_events = Vec::new();
        for piece in at.windows(2) {
            stream
                .push(&text[piece[0]..piece[1]], &mut events)
                .expect("within the size limit");
            reusing
                .push_reusing(&text[piece[0]..piece[1]], &mut piece_events)
                .expect("within the size limit");
            reused.extend(piece_events.iter().cloned());
        }
        stream.finish(&mut events).expect("finishes");
        piece_events.clear();
        reusing.finish(&mut piece_events).expect("finishes");
        reused.extend(piece_events);
        if changes {
            assert_eq!(reused, events, "push_reusing sends what push sends");
        } else {
            let mut without = events.clone();
            for event in &mut without {
                if let toolbridge::call::CallEvent::ArgumentsDelta { changes, .. }
                | toolbridge::call::CallEvent::ArgumentsReplaced { changes, .. } = event
                {
                    changes.clear();
                }
            }
            assert_eq!(
                reused, without,
                "without changes, the events of push without them"
            );
        }
        let mut open = Vec::new();
        let mut calls = Vec::new();
        let mut prose = String::new();
        for event in &events {
            match event {
                toolbridge::call::CallEvent::Text { text } => prose.push_str(text),
                toolbridge::call::CallEvent::Started { index, id, name, .. } => {
                    assert_eq!(*index, open.len());
                    open.push(Some((id, name)));
                }
                toolbridge::call::CallEvent::Finished { index, call } => {
                    let (id, name) = open[*index].take().expect("finished once");
                    assert_eq!((id, name), (&call.id, &call.name), "started as finished");
                    calls.push((**call).clone());
                }
                _ => {}
            }
        }
        assert!(open.iter().all(Option::is_none), "every call finished");
        let lone = stream
            .notes()
            .iter()
            .any(|note| note.to_string().contains("no opening one"));
        if let (Some(family), false) = (family, lone) {
            let whole = toolbridge::text::parse(text, family, tools).expect("within the size limit");
            assert_eq!(calls, whole.calls, "{family}");
            assert_eq!(prose.trim(), whole.prose.trim(), "{family}: the prose");
        }
    }
});
