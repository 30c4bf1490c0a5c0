//! The library's layers: a module imports only from modules declared before
//! it in `src/lib.rs` (the list there is lowest first). This test reads every
//! non-test source line for `crate::<module>` paths and fails on one that
//! points up, naming the file, the line and both modules.

use std::fs;
use std::path::{Path, PathBuf};

/// The top-level modules in the order `lib.rs` declares them.
fn layer_order(src: &Path) -> Vec<String> {
    let lib = fs::read_to_string(src.join("lib.rs")).expect("read lib.rs");
    lib.lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .or_else(|| line.strip_prefix("mod "))?;
            rest.strip_suffix(';').map(str::to_string)
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("list src") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The `crate::<module>` names used in `code` (comments already removed),
/// each with the byte offset where it appears; `crate::{a::X, b}` groups,
/// even across lines, give each top-level name.
fn crate_paths(code: &str) -> Vec<(usize, &str)> {
    let ident_end = |text: &str| {
        text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(text.len())
    };
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("crate::") {
        let start = from + at + "crate::".len();
        let after = &code[start..];
        if let Some(group) = after.strip_prefix('{') {
            // Top-level entries of the group: split on commas at depth 0.
            let (mut depth, mut entry_start) = (0usize, 0usize);
            for (index, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        push_entry(group, entry_start, index, start + 1, &mut found);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        push_entry(group, entry_start, index, start + 1, &mut found);
                        entry_start = index + 1;
                    }
                    _ => {}
                }
            }
        } else {
            let end = ident_end(after);
            found.push((start, &after[..end]));
        }
        from = start;
    }
    found
}

fn push_entry<'a>(group: &'a str, from: usize, to: usize, base: usize, found: &mut Vec<(usize, &'a str)>) {
    let entry = &group[from..to];
    let trimmed = entry.trim_start();
    let name = trimmed
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    if !name.is_empty() {
        found.push((base + from + (entry.len() - trimmed.len()), name));
    }
}

/// The file's code above its unit tests, with `//` comments blanked out
/// (byte offsets, and so line numbers, stay the same).
fn code_above_tests(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        // Unit tests sit at the bottom of a file and may use anything.
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        match line.find("//") {
            Some(at) => {
                code.push_str(&line[..at]);
                code.extend(line[at..].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            }
            None => code.push_str(line),
        }
    }
    code
}

#[test]
fn imports_point_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let order = layer_order(&src);
    assert!(
        order.iter().any(|m| m == "format") && order.iter().any(|m| m == "pipeline"),
        "lib.rs declares {order:?}"
    );
    let rank = |name: &str| order.iter().position(|m| m == name);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut upward = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).unwrap();
        let Some(first) = relative.components().next() else {
            continue;
        };
        let top = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        let Some(own) = rank(&top) else {
            continue; // lib.rs itself sits above every layer
        };
        let code = code_above_tests(&fs::read_to_string(file).unwrap());
        for (offset, name) in crate_paths(&code) {
            if rank(name).is_some_and(|theirs| theirs > own) {
                let line = code[..offset].matches('\n').count() + 1;
                upward.push(format!(
                    "{}:{line}: `{top}` imports `{name}`, a higher layer",
                    relative.display()
                ));
            }
        }
    }
    assert!(upward.is_empty(), "imports that point up:\n{}", upward.join("\n"));
}

#[test]
fn the_checker_sees_grouped_and_inline_paths() {
    let code = code_above_tests(
        "use crate::{error::Error, json::{Node, describe}}; // crate::format\n\
         use crate::{\n    note::Notes,\n    options,\n};\n\
         let x = crate::pipeline::write(a);\n\
         #[cfg(test)]\nuse crate::registry;\n",
    );
    let names: Vec<&str> = crate_paths(&code).into_iter().map(|(_, name)| name).collect();
    assert_eq!(names, vec!["error", "json", "note", "options", "pipeline"]);
}
