//! Tool names fitted to each target's rules, with a reversible map.
//!
//! MCP allows `.` and 128 characters; OpenAI, Anthropic and Bedrock allow
//! `[a-zA-Z0-9_-]{1,64}`; Gemini and Cohere also want a letter or underscore
//! first. A name that breaks the target's rule is rewritten (invalid
//! characters become `_`, an over-long name is cut and given a hash suffix),
//! collisions get `_2`, `_3`, …, and the [`NameMap`] remembers both directions
//! so that a call to the new name can be routed back to the tool.

use std::collections::{HashMap, HashSet};

/// What names a target accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameRule {
    /// Longest name, in characters.
    pub max_len: usize,
    /// Characters allowed besides ASCII letters and digits.
    pub extra_chars: &'static str,
    /// The first character must be a letter or `_`.
    pub letter_first: bool,
}

impl NameRule {
    /// `^[a-zA-Z0-9_-]{1,64}$`: OpenAI, Anthropic, Bedrock, Mistral, Ollama.
    pub const OPENAI: NameRule = NameRule {
        max_len: 64,
        extra_chars: "_-",
        letter_first: false,
    };
    /// `^[a-zA-Z_][a-zA-Z0-9_-]{0,62}$`: the Gemini rule every API version accepts.
    pub const GEMINI: NameRule = NameRule {
        max_len: 63,
        extra_chars: "_-",
        letter_first: true,
    };
    /// `^[a-zA-Z_][a-zA-Z0-9_]*$` (64 at most): Cohere.
    pub const COHERE: NameRule = NameRule {
        max_len: 64,
        extra_chars: "_",
        letter_first: true,
    };
    /// `^[A-Za-z0-9_.-]{1,128}$`: MCP's naming guidance.
    pub const MCP: NameRule = NameRule {
        max_len: 128,
        extra_chars: "_-.",
        letter_first: false,
    };

    /// True if `name` already fits the rule.
    pub fn accepts(&self, name: &str) -> bool {
        let mut chars = name.chars();
        let Some(first) = chars.next() else {
            return false;
        };
        name.chars().count() <= self.max_len
            && name.chars().all(|c| self.allows(c))
            && (!self.letter_first || first.is_ascii_alphabetic() || first == '_')
    }

    fn allows(&self, c: char) -> bool {
        c.is_ascii_alphanumeric() || self.extra_chars.contains(c)
    }

    /// The name rewritten to fit the rule (no collision handling).
    pub fn fit(&self, name: &str) -> String {
        let mut fitted: String = name
            .chars()
            .map(|c| if self.allows(c) { c } else { '_' })
            .collect();
        if fitted.is_empty() {
            fitted.push_str("tool");
        }
        if self.letter_first && !fitted.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            fitted.insert(0, '_');
        }
        if fitted.chars().count() > self.max_len {
            let suffix = format!("_{:08x}", fnv1a(name));
            let keep = self.max_len - suffix.len();
            fitted = fitted.chars().take(keep).collect::<String>() + &suffix;
        }
        fitted
    }
}

/// FNV-1a, 32 bits: a stable short hash for truncated names.
fn fnv1a(text: &str) -> u32 {
    text.bytes().fold(0x811c_9dc5_u32, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// Original tool names and the names a target gets, both ways.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMap {
    pairs: Vec<(String, String)>,
}

impl NameMap {
    /// Fits every name to `rule`, keeping valid names and resolving collisions
    /// in order. The result has one entry per input name, in input order.
    pub fn build<'a>(names: impl IntoIterator<Item = &'a str>, rule: Option<&NameRule>) -> NameMap {
        let names: Vec<&str> = names.into_iter().collect();
        let mut taken: HashSet<String> = HashSet::new();
        let mut targets: Vec<Option<String>> = vec![None; names.len()];
        // Next suffix to try per base name, so that many duplicates stay linear.
        let mut next_suffix: HashMap<String, usize> = HashMap::new();
        // Names that already fit keep their name (first one wins on duplicates).
        for (index, name) in names.iter().enumerate() {
            let fits = rule.is_none_or(|rule| rule.accepts(name));
            if fits && taken.insert(name.to_string()) {
                targets[index] = Some(name.to_string());
            }
        }
        for (index, name) in names.iter().enumerate() {
            if targets[index].is_some() {
                continue;
            }
            let base = match rule {
                Some(rule) => rule.fit(name),
                None => name.to_string(),
            };
            let mut candidate = base.clone();
            let counter = next_suffix.entry(base.clone()).or_insert(2);
            while taken.contains(&candidate) {
                let suffix = format!("_{}", *counter);
                let max_len = rule.map_or(usize::MAX, |rule| rule.max_len);
                let keep = max_len.saturating_sub(suffix.len()).min(base.chars().count());
                candidate = base.chars().take(keep).collect::<String>() + &suffix;
                *counter += 1;
            }
            taken.insert(candidate.clone());
            targets[index] = Some(candidate);
        }
        NameMap {
            pairs: names
                .iter()
                .zip(targets)
                .map(|(name, target)| (name.to_string(), target.unwrap_or_default()))
                .collect(),
        }
    }

    /// The target name of the tool at position `index`.
    pub fn target_at(&self, index: usize) -> Option<&str> {
        self.pairs.get(index).map(|(_, target)| target.as_str())
    }

    /// The target name for an original name (the first tool with that name).
    pub fn target(&self, original: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(name, _)| name == original)
            .map(|(_, target)| target.as_str())
    }

    /// The original name behind a target name.
    pub fn original(&self, target: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(_, name)| name == target)
            .map(|(original, _)| original.as_str())
    }

    /// The (original, target) pairs whose names differ.
    pub fn renamed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs
            .iter()
            .filter(|(original, target)| original != target)
            .map(|(original, target)| (original.as_str(), target.as_str()))
    }

    /// All (original, target) pairs, in tool order.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(a, b)| (a.as_str(), b.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_mcp_names_to_openai() {
        let map = NameMap::build(
            ["github.search", "github_search", "ok-name"],
            Some(&NameRule::OPENAI),
        );
        assert_eq!(map.target_at(0), Some("github_search_2"));
        assert_eq!(map.target_at(1), Some("github_search"));
        assert_eq!(map.target_at(2), Some("ok-name"));
        assert_eq!(map.original("github_search_2"), Some("github.search"));
        assert_eq!(
            map.renamed().collect::<Vec<_>>(),
            [("github.search", "github_search_2")]
        );
    }

    #[test]
    fn long_names_get_a_stable_hash_suffix() {
        let long = "a".repeat(100);
        let fitted = NameRule::OPENAI.fit(&long);
        assert_eq!(fitted.len(), 64);
        assert_eq!(fitted, NameRule::OPENAI.fit(&long));
        assert!(fitted.starts_with(&"a".repeat(55)), "{fitted}");
        assert!(NameRule::OPENAI.accepts(&fitted));
    }

    #[test]
    fn letter_first_rules_prefix_an_underscore() {
        assert_eq!(NameRule::GEMINI.fit("3d-print"), "_3d-print");
        assert_eq!(NameRule::COHERE.fit("get-weather"), "get_weather");
        assert!(!NameRule::COHERE.accepts("get-weather"));
        assert_eq!(NameRule::OPENAI.fit(""), "tool");
    }

    #[test]
    fn many_duplicates_stay_fast() {
        let names = vec!["rnorm"; 20_000];
        let map = NameMap::build(names.iter().copied(), Some(&NameRule::OPENAI));
        assert_eq!(map.target_at(19_999), Some("rnorm_20000"));
    }

    #[test]
    fn duplicates_are_numbered() {
        let map = NameMap::build(["search", "search", "search"], Some(&NameRule::OPENAI));
        let targets: Vec<_> = (0..3).map(|i| map.target_at(i).unwrap()).collect();
        assert_eq!(targets, ["search", "search_2", "search_3"]);
        let map = NameMap::build(["x y"], None);
        assert_eq!(map.target_at(0), Some("x y"));
    }
}
