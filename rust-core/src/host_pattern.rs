//! Host patterns: `api.example.com` (exact) or `*.example.com` (any subdomain, not the
//! apex), compared ASCII case-insensitively with a trailing dot ignored.
//!
//! Used for business-line `match` lists (validation of the patterns themselves lives in
//! the config rules). [`HostPatterns`] maps patterns to values; an exact pattern beats a suffix, and a longer
//! suffix beats a shorter one, so `*.img.example.com` can override `*.example.com`.

use std::collections::HashMap;

/// A set of host patterns, each mapped to a value of type `T`.
#[derive(Debug, Clone)]
pub struct HostPatterns<T> {
    exact: HashMap<String, T>,
    /// `(".example.com", value)`, longest suffix first.
    suffixes: Vec<(String, T)>,
}

impl<T> Default for HostPatterns<T> {
    fn default() -> Self {
        HostPatterns {
            exact: HashMap::new(),
            suffixes: Vec::new(),
        }
    }
}

impl<T: Clone> HostPatterns<T> {
    /// Builds the set; later duplicates of a pattern are ignored (validation reports them).
    pub fn new<'a>(patterns: impl IntoIterator<Item = (&'a str, T)>) -> Self {
        let mut set = HostPatterns::default();
        for (pattern, value) in patterns {
            let p = normalise(pattern);
            if let Some(suffix) = p.strip_prefix('*') {
                if !set.suffixes.iter().any(|(s, _)| s == suffix) {
                    set.suffixes.push((suffix.to_string(), value));
                }
            } else {
                set.exact.entry(p).or_insert(value);
            }
        }
        set.suffixes.sort_by_key(|s| std::cmp::Reverse(s.0.len()));
        set
    }

    /// The value of the most specific pattern matching `host`.
    pub fn get(&self, host: &str) -> Option<&T> {
        let needs_norm = host.ends_with('.') || host.bytes().any(|b| b.is_ascii_uppercase());
        let owned;
        let host = if needs_norm {
            owned = normalise(host);
            owned.as_str()
        } else {
            host
        };
        if let Some(v) = self.exact.get(host) {
            return Some(v);
        }
        self.suffixes
            .iter()
            .find(|(suffix, _)| host.len() > suffix.len() && host.ends_with(suffix.as_str()))
            .map(|(_, v)| v)
    }

    /// Whether any pattern matches `host`.
    #[cfg(any(test, feature = "testing"))]
    pub fn matches(&self, host: &str) -> bool {
        self.get(host).is_some()
    }

    /// Whether the set is empty.
    #[cfg(any(test, feature = "testing"))]
    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.suffixes.is_empty()
    }
}

fn normalise(host: &str) -> String {
    host.trim_end_matches('.').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_and_suffix_patterns() {
        let p = HostPatterns::new([
            ("api.example.com", 1),
            ("*.example.com", 2),
            ("*.img.example.com", 3),
        ]);
        assert_eq!(p.get("API.example.com."), Some(&1));
        assert_eq!(p.get("x.example.com"), Some(&2));
        assert_eq!(p.get("a.b.img.example.com"), Some(&3));
        assert_eq!(p.get("example.com"), None);
        assert_eq!(p.get("badexample.com"), None);
        assert!(HostPatterns::<u8>::default().is_empty());
    }
}
