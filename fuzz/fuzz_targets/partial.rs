//! The partial-JSON parser on arbitrary bytes cut into deltas (the first byte
//! picks their length): no panic, every error displays, and a text that
//! `serde_json` accepts gives the same value.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (step, text) = data.split_first().map_or((1, data), |(step, text)| (usize::from(*step).max(1), text));
    let mut parser = toolbridge::call::PartialJson::new();
    let fed: Vec<_> = text.chunks(step).map(|delta| parser.feed_bytes(delta, &mut Vec::new()).map_err(|e| e.to_string())).collect();
    let finished = parser.finish().map_err(|error| error.to_string());
    if let Ok(expected) = serde_json::from_slice::<serde_json::Value>(text) {
        assert_eq!(finished, Ok(expected), "{fed:?}");
    }
});
