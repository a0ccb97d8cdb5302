//! Strict JSON for everything the config channel reads: a config document, a signed
//! envelope and the config bytes inside it.
//!
//! `serde_json` keeps the last of two equal keys in one object, so `{"version":1,
//! "version":9}` would be read as version 9 by the engine while a reviewer, a diff or
//! another JSON tool may well see version 1. A signature over such bytes vouches for a
//! document whose meaning depends on the reader. [`parse`] therefore refuses any object
//! that repeats a key, at any depth, naming the path of the second occurrence.
//!
//! It is one pass: a [`DeserializeSeed`] builds the same [`serde_json::Value`] that
//! `serde_json::from_str` would, checking each key against the entries already read into
//! its object (the map lookup the insert does anyway). The path is a chain of borrowed
//! steps on the stack, rendered only when a duplicate is found; depth stays bounded by
//! `serde_json`'s own recursion limit, and trailing characters are refused as before.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::cell::RefCell;
use std::fmt;

/// Why text is not strict JSON.
#[derive(Debug)]
pub(crate) enum JsonError {
    /// Not JSON at all (`serde_json`'s message: a fixed phrase with line and column).
    Syntax(serde_json::Error),
    /// An object repeats a key; the path of the repeated key (`a.b[2]["odd key"]`).
    DuplicateKey(String),
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonError::Syntax(e) => write!(f, "not valid JSON: {e}"),
            JsonError::DuplicateKey(path) => write!(f, "duplicate key `{path}`"),
        }
    }
}

/// What a duplicate key is reported as at its path (a config field error's text).
pub(crate) const DUPLICATE_KEY: &str = "duplicate key: each key may appear once per object";

/// Parses `text` as JSON, refusing duplicate keys in any object (see the module docs).
pub(crate) fn parse(text: &str) -> Result<Value, JsonError> {
    let duplicate = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    let parsed = Strict {
        at: &Step::Root,
        duplicate: &duplicate,
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    match (parsed, duplicate.into_inner()) {
        (_, Some(path)) => Err(JsonError::DuplicateKey(path)),
        (Ok(v), None) => Ok(v),
        (Err(e), None) => Err(JsonError::Syntax(e)),
    }
}

/// Where a value sits: the root, a key of an object or an index of an array.
enum Step<'a> {
    Root,
    Key(&'a Step<'a>, &'a str),
    Index(&'a Step<'a>, usize),
}

impl Step<'_> {
    fn render(&self, out: &mut String) {
        match self {
            Step::Root => {}
            Step::Key(parent, key) => {
                parent.render(out);
                let plain = !key.is_empty()
                    && key
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
                if plain {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(key);
                } else {
                    out.push_str(&super::rules::quoted_key(key));
                }
            }
            Step::Index(parent, i) => {
                parent.render(out);
                out.push_str(&format!("[{i}]"));
            }
        }
    }
}

/// The seed (and visitor) that reads one value at `at`.
#[derive(Clone, Copy)]
struct Strict<'a> {
    at: &'a Step<'a>,
    duplicate: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for Strict<'_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Strict<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        // JSON text has no NaN or infinity, so this is always a number.
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict {
            at: &Step::Index(self.at, items.len()),
            duplicate: self.duplicate,
        })? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let at = Step::Key(self.at, &key);
            if out.contains_key(&key) {
                let mut path = String::new();
                at.render(&mut path);
                *self.duplicate.borrow_mut() = Some(path);
                return Err(A::Error::custom("duplicate key"));
            }
            let value = map.next_value_seed(Strict {
                at: &at,
                duplicate: self.duplicate,
            })?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duplicate(text: &str) -> String {
        match parse(text) {
            Err(JsonError::DuplicateKey(path)) => path,
            other => panic!("expected a duplicate key in {text}, got {other:?}"),
        }
    }

    #[test]
    fn the_same_value_as_serde_json_when_keys_are_unique() {
        for text in [
            r#"{"a":1,"b":[true,null,-3,2.5,"x",{"c":{}}],"d":18446744073709551615}"#,
            "[]",
            " \"s\" ",
            "1e300",
        ] {
            let want: Value = serde_json::from_str(text).unwrap();
            assert_eq!(parse(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn a_repeated_key_at_any_depth_is_refused_with_its_path() {
        assert_eq!(duplicate(r#"{"version":1,"version":9}"#), "version");
        assert_eq!(
            duplicate(r#"{"biz_lines":{"spot":{"http":[{"id":"a","id":"b"}]}}}"#),
            "biz_lines.spot.http[0].id"
        );
        assert_eq!(
            duplicate(r#"[{}, {"Odd Key":1,"Odd Key":2}]"#),
            r#"[1]["Odd Key"]"#
        );
        // Escapes are decoded before the comparison: these are one key.
        assert_eq!(duplicate(r#"{"a":1,"\u0061":2}"#), "a");
    }

    #[test]
    fn syntax_errors_and_trailing_text_stay_syntax_errors() {
        for text in ["{", r#"{"a":1} x"#, "", r#"{"a":1,}"#] {
            assert!(matches!(parse(text), Err(JsonError::Syntax(_))), "{text}");
        }
    }
}
