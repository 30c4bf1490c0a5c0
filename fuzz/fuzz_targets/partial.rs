//! The partial-JSON parser on arbitrary bytes cut into deltas (the first byte
//! picks their length): no panic, errors display, and a text that
//! `serde_json` accepts gives the same value. After an error every call
//! returns it, so the error of `finish` is the first one. A text that is
//! UTF-8 is also fed as `str` deltas (cut at character boundaries, which
//! takes the string fast path), with the same outcome.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (mut parser, mut changes) = (toolbridge::call::PartialJson::new(), Vec::new());
    let step = data.first().map_or(1, |&step| usize::from(step).max(1));
    let text = data.get(1..).unwrap_or_default();
    for delta in text.chunks(step) {
        let _ = parser.feed_bytes(delta, &mut changes);
    }
    let finished = parser.finish().map_err(|error| error.to_string());
    if let Ok(text) = std::str::from_utf8(text) {
        let (mut parser, mut changes) = (toolbridge::call::PartialJson::new(), Vec::new());
        let mut start = 0;
        while start < text.len() {
            let mut end = (start + step).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let _ = parser.feed(&text[start..end], &mut changes);
            start = end;
        }
        let fed = parser.finish().map_err(|error| error.to_string());
        assert_eq!(fed, finished);
    }
    // serde_json's `raw_value` feature reads an object whose key is its
    // private token `$serde_json::private::RawValue` as the value inside it,
    // which is not what the JSON says: no reference for such a text.
    let private_token = text
        .windows(30)
        .any(|window| window == b"$serde_json::private::RawValue");
    if let (Ok(expected), false) = (serde_json::from_slice::<serde_json::Value>(text), private_token) {
        assert_eq!(finished, Ok(expected));
    }
});
