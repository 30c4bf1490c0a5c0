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
use std::cell::Cell;

use serde_json::Value;
use toolbridge::call::PartialJson;

#[path = "../benches/documents/mod.rs"]
mod documents;

/// The system allocator, counting the bytes in use and their peak (per
/// thread, so without atomics that would slow the allocations measured; the
/// example has one thread). A reallocation counts as a new block plus the
/// old one until it is freed, the worst case, as if every growth copied.
struct Counting;

thread_local! {
    static IN_USE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

fn track(grown: usize, shrunk: usize) {
    let now = IN_USE.get() + grown;
    IN_USE.set(now - shrunk);
    PEAK.set(PEAK.get().max(now));
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
        track(new_size, layout.size());
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
    let before = IN_USE.get();
    PEAK.set(before);
    let started = std::time::Instant::now();
    let value = measured(&text, &deltas, how == "serde");
    let elapsed = started.elapsed();
    let peak = PEAK.get() - before;
    let kept = IN_USE.get() - before;
    println!(
        "{shape} {} bytes, {how}: {elapsed:.2?}, peak {peak} bytes ({:.2}× the document), value {kept} bytes ({:.2}×)",
        text.len(),
        peak as f64 / text.len() as f64,
        kept as f64 / text.len() as f64,
    );
    drop(value);
}
