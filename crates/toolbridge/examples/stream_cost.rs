//! What streaming one document costs, for comparisons steadier than wall
//! time: run it under `valgrind --tool=callgrind` for instruction counts, or
//! alone for the peak heap memory (a counting global allocator).
//! Instructions of the measured part only:
//! `valgrind --tool=callgrind --toggle-collect='*measured*' target/release/examples/stream_cost string 100000 4`
//!
//! ```text
//! cargo run --release -p toolbridge --example stream_cost -- <string|nested> <bytes> <chunk|serde>
//! ```
//!
//! `serde` parses the whole document once with `serde_json` (the floor);
//! a number streams it through `PartialJson` in deltas of that many bytes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use toolbridge::call::PartialJson;

#[path = "../benches/documents/mod.rs"]
mod documents;

/// The system allocator, counting the bytes in use and their peak.
struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn track(grown: usize, shrunk: usize) {
    let now = IN_USE.fetch_add(grown, Ordering::Relaxed) + grown;
    IN_USE.fetch_sub(shrunk, Ordering::Relaxed);
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; only counters move.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        track(layout.size(), 0);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        track(0, layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        track(
            new_size.saturating_sub(layout.size()),
            layout.size().saturating_sub(new_size),
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The part measured (`--toggle-collect=*measured*` under callgrind).
#[inline(never)]
fn measured(text: &str, deltas: &[&str], serde: bool) -> Value {
    if serde {
        return serde_json::from_str(text).expect("valid JSON");
    }
    let mut parser = PartialJson::new();
    let mut changes = Vec::new();
    for delta in deltas {
        changes.clear();
        parser.feed(delta, &mut changes).expect("valid JSON");
        std::hint::black_box((parser.value(), &changes));
    }
    parser.finish().expect("complete JSON")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [shape, size, how] = args.as_slice() else {
        eprintln!("usage: stream_cost <string|nested> <bytes> <chunk|serde>");
        std::process::exit(2);
    };
    assert!(
        documents::SHAPES.contains(&shape.as_str()),
        "shapes: {:?}",
        documents::SHAPES
    );
    let size: usize = size.parse().expect("a size in bytes");
    let text = documents::document(shape, size);
    let deltas = match how.parse::<usize>() {
        Ok(chunk) => documents::deltas(&text, chunk),
        Err(_) => Vec::new(),
    };
    let before = IN_USE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let value = measured(&text, &deltas, how == "serde");
    let peak = PEAK.load(Ordering::Relaxed) - before;
    let kept = IN_USE.load(Ordering::Relaxed) - before;
    println!(
        "{shape} {} bytes, {how}: peak {peak} bytes ({:.2}× the document), value {kept} bytes ({:.2}×)",
        text.len(),
        peak as f64 / text.len() as f64,
        kept as f64 / text.len() as f64,
    );
    drop(value);
}
