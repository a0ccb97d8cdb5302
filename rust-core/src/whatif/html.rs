//! The self-contained HTML report of one or two runs.

/// Placeholder.
pub fn render(_w: &super::WhatIf, _compare: bool) -> String {
    String::new()
}
