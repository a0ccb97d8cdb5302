//! The lenient JSON decoder of the config model: [`Decode`] turns a [`serde_json::Value`]
//! into a typed value, reporting every wrong type or missing field as a *structural*
//! finding at its path while a placeholder stands in for the value, so one pass reports
//! every problem of a document and the semantic rules (module `config::rules`) that run
//! next see a complete typed config.
//!
//! The config types derive their impls (`#[derive(Decode)]`, crate `linekit-derive`) from
//! their own declarations in `model.rs`, `remote.rs`, `trust.rs` and `provider_auth.rs`:
//! the serde attributes there (keys, defaults) say how each field is read, exactly as the
//! serde `Deserialize` beside them reads it, and a few `#[decode(...)]` attributes add what
//! validation asks for beyond serde (fields required although serde defaults them, lists
//! that must not be empty). So a field is declared once, and this decoder cannot miss one.
//! This module holds the impls of the leaves (booleans, integers, numbers, strings, lists,
//! maps, options) and the [`Decoder`] they share.
//!
//! The [`Decoder`] keeps the path of the value being read in one buffer, extended by a
//! step (`.key`, `[3]`, `["name"]`) on the way down and cut back on the way up: a path is
//! copied only into a finding. Loops over items and entries are not generic, so a list or
//! map type adds only the decoding of one item.
//!
//! Messages name the expected and the found JSON type, never the value (`expected an
//! unsigned integer, found a string`).
//!
//! The state file's records (`crate::store::state`) derive the same decoder, read
//! strictly ([`exact`]): the library wrote that file itself, so any finding outside a
//! list that drops its damaged items (`#[decode(drop_malformed)]`) means damage, and the
//! error names the path. One JSON decoder serves every document the library reads into a
//! type, so the shipped library carries no second, serde-driven one.

use super::model::Config;
use super::rules::{quoted_key, Findings};
use crate::error::FieldError;
use crate::wire::WireEnum;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{IpAddr, Ipv4Addr};

pub(crate) use linekit_derive::Decode;

/// A config type the lenient decoder reads (see the module docs).
pub(crate) trait Decode: Sized {
    /// The value a record starts from before its fields are read, and the value that stands
    /// in for a malformed item of a list or map (so the items keep their indices).
    fn placeholder() -> Self;

    /// `v`, found at the decoder's current path, as a `Self`. `None`, after a finding at
    /// that path, when `v` has the wrong shape; problems below it are findings too but
    /// still give a value.
    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self>;
}

/// The findings of a document being decoded and the path of the value being read; the
/// generated impls call its methods.
pub(crate) struct Decoder<'f> {
    f: &'f mut Findings,
    path: String,
}

/// The lenient typed copy of a whole document, every problem of its shape in `f`.
pub(crate) fn document(v: &Value, f: &mut Findings) -> Config {
    let mut d = Decoder::at_root(f);
    if !v.is_object() {
        d.structural(format!(
            "config must be a JSON object, found {}",
            describe(v)
        ));
        return Config::default();
    }
    Config::decode(&mut d, v).unwrap_or_default()
}

/// `v` read as a whole `T` with no finding, or the first finding in document order (its
/// path and what is wrong, never the value): the strict reading of a record the library
/// wrote itself.
pub(crate) fn exact<T: Decode>(v: &Value) -> Result<T, FieldError> {
    let mut f = Findings::default();
    let value = T::decode(&mut Decoder::at_root(&mut f), v);
    let clean = f.is_empty();
    match value {
        Some(value) if clean => Ok(value),
        _ => Err(f
            .into_errors()
            .into_iter()
            .next()
            .unwrap_or_else(|| FieldError::new("", "not readable"))),
    }
}

fn describe(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_u64() => "an unsigned integer",
        Value::Number(n) if n.is_i64() => "a negative integer",
        Value::Number(_) => "a floating-point number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'f> Decoder<'f> {
    /// A decoder at the root of a document, its findings going to `f`.
    fn at_root(f: &'f mut Findings) -> Self {
        Decoder {
            f,
            path: String::new(),
        }
    }

    /// A structural finding at the current path: the value there is a placeholder.
    pub(crate) fn structural(&mut self, error: impl Into<String>) {
        self.f.structural(&self.path, error.into());
    }

    /// A structural finding at field `key` of the current record.
    pub(crate) fn structural_at(&mut self, key: &str, error: &str) {
        let mark = self.enter(key);
        self.structural(error);
        self.path.truncate(mark);
    }

    /// The value at the current path is dropped because this build cannot use it (`why`).
    pub(crate) fn unsupported(&mut self, why: String) {
        self.f.warning(&self.path, why);
    }

    /// Extends the path by field `key`; returns the length to cut it back to.
    fn enter(&mut self, key: &str) -> usize {
        let mark = self.path.len();
        if mark > 0 {
            self.path.push('.');
        }
        self.path.push_str(key);
        mark
    }

    fn expected(&mut self, what: &str, v: &Value) {
        self.structural(format!("expected {what}, found {}", describe(v)));
    }

    /// `read(v)`, or a finding that `v` is not `what`.
    fn typed<'v, T>(
        &mut self,
        v: &'v Value,
        read: fn(&'v Value) -> Option<T>,
        what: &str,
    ) -> Option<T> {
        let value = read(v);
        if value.is_none() {
            self.expected(what, v);
        }
        value
    }

    /// `v` as an object.
    pub(crate) fn object<'v>(&mut self, v: &'v Value) -> Option<&'v Map<String, Value>> {
        self.typed(v, Value::as_object, "an object")
    }

    /// `v` as a string.
    pub(crate) fn text<'v>(&mut self, v: &'v Value) -> Option<&'v str> {
        self.typed(v, Value::as_str, "a string")
    }

    /// Field `key` of the object `o`, when present; absent, a finding when `required`.
    fn lookup<'v>(
        &mut self,
        o: &'v Map<String, Value>,
        key: &str,
        required: bool,
    ) -> Option<&'v Value> {
        let v = o.get(key);
        if v.is_none() && required {
            self.structural_at(key, "missing required field");
        }
        v
    }

    /// Reads field `key` of the object `o` (the current record) into `slot`; see
    /// [`Decoder::field_with`].
    pub(crate) fn field<T: Decode>(
        &mut self,
        o: &Map<String, Value>,
        key: &str,
        required: bool,
        slot: &mut T,
    ) -> bool {
        self.field_with(o, key, required, slot, T::decode)
    }

    /// Reads field `key` of `o` with `read` into `slot`. An absent field keeps the slot's
    /// value (a finding when `required`), so does a malformed one. True when a value was
    /// read.
    pub(crate) fn field_with<T>(
        &mut self,
        o: &Map<String, Value>,
        key: &str,
        required: bool,
        slot: &mut T,
        read: impl FnOnce(&mut Self, &Value) -> Option<T>,
    ) -> bool {
        let Some(v) = self.lookup(o, key, required) else {
            return false;
        };
        let mark = self.enter(key);
        let value = read(self, v);
        self.path.truncate(mark);
        match value {
            Some(value) => {
                *slot = value;
                true
            }
            None => false,
        }
    }

    /// Calls `item` on each item of the array `v`, the path extended by `[i]`; false, after
    /// a finding, when `v` is not an array.
    fn items(&mut self, v: &Value, item: &mut dyn FnMut(&mut Self, &Value)) -> bool {
        let Some(items) = v.as_array() else {
            self.expected("an array", v);
            return false;
        };
        let mark = self.path.len();
        for (i, v) in items.iter().enumerate() {
            // Writing to a String cannot fail.
            let _ = write!(self.path, "[{i}]");
            item(self, v);
            self.path.truncate(mark);
        }
        true
    }

    /// The array `v`'s items that read with no finding; an item with any finding is left
    /// out, its findings with it (`#[decode(drop_malformed)]`). `None`, after a finding,
    /// when `v` is not an array.
    pub(crate) fn well_formed_items<T: Decode>(&mut self, v: &Value) -> Option<Vec<T>> {
        let mut out = Vec::new();
        let read = self.items(v, &mut |_, item| {
            let mut own = Findings::default();
            let value = T::decode(&mut Decoder::at_root(&mut own), item);
            if let Some(value) = value.filter(|_| own.is_empty()) {
                out.push(value);
            }
        });
        read.then_some(out)
    }

    /// The object `v` as a map; the entry named `k` is at the path extended by `step(k)`,
    /// and a malformed entry is kept as a placeholder (so rules still see the name).
    #[inline]
    pub(crate) fn map<V: Decode>(
        &mut self,
        v: &Value,
        step: fn(&str) -> String,
    ) -> Option<BTreeMap<String, V>> {
        let mut out = BTreeMap::new();
        let read = self.entries(v, step, &mut |d, name, v| {
            let value = V::decode(d, v).unwrap_or_else(V::placeholder);
            out.insert(name.to_string(), value);
        });
        read.then_some(out)
    }

    /// [`Decoder::items`] for the entries of an object: `entry` gets each one's name and
    /// value, the path extended by `step(name)`.
    fn entries(
        &mut self,
        v: &Value,
        step: fn(&str) -> String,
        entry: &mut dyn FnMut(&mut Self, &str, &Value),
    ) -> bool {
        let Some(o) = self.object(v) else {
            return false;
        };
        let mark = self.path.len();
        for (name, v) in o {
            self.path.push_str(&step(name));
            entry(self, name, v);
            self.path.truncate(mark);
        }
        true
    }

    /// The tag `key` of the object `o` (the current record), which names a kind `K`: a
    /// required string, one of `K`'s names.
    pub(crate) fn tag<K: WireEnum + std::str::FromStr>(
        &mut self,
        o: &Map<String, Value>,
        key: &str,
    ) -> Option<K> {
        let v = self.lookup(o, key, true)?;
        let mark = self.enter(key);
        let kind = self.text(v).and_then(|name| {
            let kind = name.parse().ok();
            if kind.is_none() {
                self.structural(format!("must be one of {}", K::names().join(", ")));
            }
            kind
        });
        self.path.truncate(mark);
        kind
    }
}

impl Decode for bool {
    fn placeholder() -> Self {
        false
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        d.typed(v, Value::as_bool, "a boolean")
    }
}

impl Decode for u64 {
    fn placeholder() -> Self {
        0
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        d.typed(v, Value::as_u64, "an unsigned integer")
    }
}

impl Decode for u32 {
    fn placeholder() -> Self {
        0
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        let small = u32::try_from(u64::decode(d, v)?).ok();
        if small.is_none() {
            d.structural(format!("must be at most {}", u32::MAX));
        }
        small
    }
}

/// Read as a `u32` (the structural bound every small integer field shares), then
/// saturated: a narrower range is the semantic rule of its field (an HTTP status).
impl Decode for u16 {
    fn placeholder() -> Self {
        0
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        u32::decode(d, v).map(|n| u16::try_from(n).unwrap_or(u16::MAX))
    }
}

impl Decode for f64 {
    fn placeholder() -> Self {
        0.0
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        d.typed(v, Value::as_f64, "a number")
    }
}

impl Decode for String {
    fn placeholder() -> Self {
        String::new()
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        d.text(v).map(str::to_string)
    }
}

/// An address in its text form (`"192.0.2.1"`, `"2001:db8::1"`).
impl Decode for IpAddr {
    fn placeholder() -> Self {
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        let ip = d.text(v)?.parse().ok();
        if ip.is_none() {
            d.structural("expected an IP address");
        }
        ip
    }
}

/// An array; a malformed item is kept as a placeholder, so later items keep their index.
impl<T: Decode> Decode for Vec<T> {
    fn placeholder() -> Self {
        Vec::new()
    }

    #[inline]
    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        let mut out = Vec::new();
        let read = d.items(v, &mut |d, item| {
            out.push(T::decode(d, item).unwrap_or_else(T::placeholder));
        });
        read.then_some(out)
    }
}

/// A present field: `Some` of its value, `None` when that value is malformed.
impl<T: Decode> Decode for Option<T> {
    fn placeholder() -> Self {
        None
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        Some(T::decode(d, v))
    }
}

/// An object of named entries, each at `path["name"]` ([`quoted_key`]).
impl<V: Decode> Decode for BTreeMap<String, V> {
    fn placeholder() -> Self {
        BTreeMap::new()
    }

    fn decode(d: &mut Decoder<'_>, v: &Value) -> Option<Self> {
        d.map(v, quoted_key)
    }
}
