//! Peak heap memory while an argument streams in, counted by a global
//! allocator (per thread, so that tests running beside it do not count).
//! A reallocation counts as a new block plus the old one until it is freed,
//! the worst case, as if every growth copied.
//!
//! - A string-heavy argument (a file write) never holds more than 3× the
//!   document.
//! - For an array of small objects the partial value is a `serde_json::Value`,
//!   which alone is about 12× its text; the parser adds at most a tenth to
//!   what `serde_json::from_str` holds for the same document.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use serde_json::{json, Value};
use toolbridge::call::PartialJson;

struct Counting;

thread_local! {
    static IN_USE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn grow(bytes: usize) {
    let now = IN_USE.get() + bytes;
    IN_USE.set(now);
    PEAK.set(PEAK.get().max(now));
}

fn shrink(bytes: usize) {
    IN_USE.set(IN_USE.get().saturating_sub(bytes));
}

// SAFETY: every call is forwarded to `System` unchanged; only the counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrink(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grow(new_size);
        shrink(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes `run` held at once beyond what was held before it.
fn peak_of(run: impl FnOnce() -> Value) -> usize {
    let before = IN_USE.get();
    PEAK.set(before);
    let value = run();
    let peak = PEAK.get() - before;
    drop(value);
    peak
}

fn stream(text: &str, chunk: usize) -> Value {
    let mut parser = PartialJson::new();
    let mut changes = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + chunk).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        parser.feed(&text[start..end], &mut changes).unwrap();
        start = end;
    }
    parser.finish().unwrap()
}

#[test]
fn a_file_write_streams_in_at_most_three_times_its_size() {
    let content = "fn main() {\n\tprintln!(\"héllo → \\\"world\\\"\");\n}\n".repeat(20_000);
    let text = json!({"path": "src/main.rs", "content": content}).to_string();
    for chunk in [4, 32, 4096] {
        let peak = peak_of(|| stream(&text, chunk));
        assert!(
            peak <= 3 * text.len(),
            "{chunk}-byte deltas: peak {peak} bytes for a {}-byte document",
            text.len()
        );
    }
}

#[test]
fn nested_objects_cost_little_beyond_serde_jsons_own_value() {
    let items: Vec<Value> = (0..2_000)
        .map(|i| json!({"id": i, "name": format!("item {i}"), "tags": ["a", "b"], "size": {"w": 1.5, "h": null}}))
        .collect();
    let text = json!({ "items": items }).to_string();
    let floor = peak_of(|| serde_json::from_str(&text).unwrap());
    for chunk in [4, 32] {
        let peak = peak_of(|| stream(&text, chunk));
        assert!(
            peak <= floor + floor / 10,
            "{chunk}-byte deltas: peak {peak} bytes, serde_json {floor}, document {}",
            text.len()
        );
    }
}
