//! "Did you mean …?" for misspelt keys and names.

/// The candidate closest to `word` by edit distance, if it is close enough to
/// be a likely typo (at most a third of the word's length, and at least 1).
pub(crate) fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let budget = (word.chars().count() / 3).max(1);
    let word: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
    let mut best: Option<(usize, &'a str)> = None;
    let mut candidate_chars = Vec::new();
    let mut rows = Vec::new();
    for candidate in candidates {
        candidate_chars.clear();
        candidate_chars.extend(candidate.chars().flat_map(char::to_lowercase));
        // The distance is at least the difference in length: most candidates
        // are ruled out without filling a table.
        if candidate_chars.len().abs_diff(word.len()) > budget {
            continue;
        }
        let distance = distance_of(&word, &candidate_chars, &mut rows);
        if distance <= budget && best.is_none_or(|(least, _)| distance < least) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// Edit distance counting insertions, deletions, substitutions and swaps of
/// neighbours (optimal string alignment), case-insensitive.
#[cfg(test)]
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    distance_of(&a, &b, &mut Vec::new())
}

/// Optimal string alignment distance of two lowercased words; `rows` is
/// scratch space (one table of `(a.len() + 1) × (b.len() + 1)` cells) reused
/// across calls.
fn distance_of(a: &[char], b: &[char], rows: &mut Vec<usize>) -> usize {
    let width = b.len() + 1;
    rows.clear();
    rows.resize((a.len() + 1) * width, 0);
    for i in 0..=a.len() {
        rows[i * width] = i;
    }
    for (j, cell) in rows[..width].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[(i - 1) * width + j] + 1)
                .min(rows[i * width + j - 1] + 1)
                .min(rows[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[(i - 2) * width + j - 2] + 1);
            }
            rows[i * width + j] = best;
        }
    }
    rows[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_typos_but_not_strangers() {
        let keys = ["description", "inputSchema", "name"];
        assert_eq!(closest("descripton", keys), Some("description"));
        assert_eq!(closest("input_schema", keys), Some("inputSchema"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("mpc", "mcp"), 1);
    }
}
