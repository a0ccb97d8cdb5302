//! Codes for what the per-request calls would otherwise carry as strings: the request
//! method, and the strings of a route answer.
//!
//! **Methods.** [`METHODS`] lists the methods that travel as their position (the
//! generated Kotlin `HttpMethods` holds the same list); any other method travels as its
//! string, with [`OTHER_METHOD`] as its code.
//!
//! **Answers.** A route answer's strings come from a handful of sets: the business line,
//! line id, version header and body limit of a line ([`LineEntry`]), and the line's
//! origin and path prefix ([`target_entry`]). Each engine handle keeps a [`Codes`] table
//! that gives every distinct entry a code (its position plus one; 0 means none), so the
//! answer is one `long` and Kotlin fetches the strings of a code once (`codes()`), then
//! reuses the same `String` and parsed origin objects for every later answer.
//!
//! The table only grows while entries are new, and entries come from the config (a new
//! code per line when a config changes them) and from `X-Line-Fixed-Host` values. It is
//! bounded: when a kind is full, the table starts a new *generation*, empty, whose number
//! every code carries with it. The previous generation stays readable, so a report or a
//! `codes()` call for an answer given just before the change still finds its entry; a code
//! two generations old is gone (its report then names no line, and Kotlin routes again).
//!
//! Reads (one per route and report) load an immutable snapshot through `arc_swap` and
//! look the entry up by content hash, so they neither allocate nor take a lock; a new
//! entry copies the generation under a mutex (rare: once per entry).

use arc_swap::ArcSwap;
use linekit_core::line::router::{RouteDecision, Target};
use parking_lot::Mutex;
use std::sync::Arc;

/// Methods carried as their position in this list (ordered by how common they are).
pub const METHODS: [&str; 9] = [
    "GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS", "TRACE", "CONNECT",
];

/// The method code of a method outside [`METHODS`] (sent as a string instead).
pub const OTHER_METHOD: u64 = 15;

/// The code of `method`: its position in [`METHODS`], or [`OTHER_METHOD`].
pub fn method_code(method: &str) -> u64 {
    METHODS
        .iter()
        .position(|m| *m == method)
        .map_or(OTHER_METHOD, |i| i as u64)
}

/// The method with `code`, or `None` (for [`OTHER_METHOD`] or an unknown code).
pub fn method(code: u64) -> Option<&'static str> {
    usize::try_from(code)
        .ok()
        .and_then(|i| METHODS.get(i))
        .copied()
}

/// At most this many line entries per generation.
pub const LINE_CAP: usize = 2048;
/// At most this many target entries per generation.
pub const TARGET_CAP: usize = 2048;

/// The strings of a route answer's line code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineEntry {
    /// Business line.
    pub biz: Option<Arc<str>>,
    /// Line id.
    pub line: Option<Arc<str>>,
    /// The business line's `version_header`.
    pub version_header: Option<Arc<str>>,
    /// `thresholds.buffer_body_max_bytes` of the config that routed.
    pub buffer_body_max_bytes: u64,
    /// Under `observe`: the line `on` would have chosen.
    pub would_line: Option<Arc<str>>,
}

impl LineEntry {
    /// The entry of decision `d` (with its body limit), or `None` when it names neither a
    /// business line nor a line.
    pub fn of(d: &RouteDecision) -> Option<LineEntry> {
        (d.biz.is_some() || d.line.is_some()).then(|| LineEntry {
            biz: d.biz.clone(),
            line: d.line.clone(),
            version_header: d.version_header.clone(),
            buffer_body_max_bytes: d.buffer_body_max_bytes,
            would_line: would_line(d).cloned(),
        })
    }

    fn hash(d: &RouteDecision) -> u64 {
        Fx::default()
            .text(d.biz.as_deref())
            .text(d.line.as_deref())
            .text(d.version_header.as_deref())
            .number(d.buffer_body_max_bytes)
            .text(would_line(d).map(|l| &**l))
            .finish()
    }

    fn matches(&self, d: &RouteDecision) -> bool {
        same(&self.biz, &d.biz)
            && same(&self.line, &d.line)
            && same(&self.version_header, &d.version_header)
            && self.buffer_body_max_bytes == d.buffer_body_max_bytes
            && self.would_line.as_deref() == would_line(d).map(|l| &**l)
    }
}

/// Under `observe`, the line `on` would have chosen for `d`.
fn would_line(d: &RouteDecision) -> Option<&Arc<str>> {
    d.would.as_ref().and_then(|w| w.line.as_ref())
}

/// A route answer's target entry: the decision's [`Target`] without where the request's
/// path starts (`rest_at` 0), which is the request's own.
pub fn target_entry(t: &Target) -> Target {
    Target {
        rest_at: 0,
        ..t.clone()
    }
}

fn target_hash(t: &Target) -> u64 {
    Fx::default()
        .number(t.scheme as u64)
        .text(Some(&t.host))
        .number(t.port.map_or(u64::MAX, u64::from))
        .text(t.path_prefix.as_deref())
        .finish()
}

/// Whether the target entry `entry` is `t`'s.
fn same_target(entry: &Target, t: &Target) -> bool {
    entry.scheme == t.scheme
        && (Arc::ptr_eq(&entry.host, &t.host) || entry.host == t.host)
        && entry.port == t.port
        && same(&entry.path_prefix, &t.path_prefix)
}

/// Equal strings (the same allocation is checked first).
fn same(a: &Option<Arc<str>>, b: &Option<Arc<str>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
        (None, None) => true,
        _ => false,
    }
}

/// A small word-at-a-time hash (the Firefox/rustc "Fx" mix): entries are short strings.
#[derive(Default)]
struct Fx(u64);

impl Fx {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    fn word(self, w: u64) -> Fx {
        Fx((self.0.rotate_left(5) ^ w).wrapping_mul(Fx::K))
    }

    fn number(self, n: u64) -> Fx {
        self.word(n)
    }

    fn text(self, s: Option<&str>) -> Fx {
        let Some(s) = s else {
            return self.word(u64::MAX);
        };
        let mut h = self;
        let mut chunks = s.as_bytes().chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = h.word(u64::from_le_bytes(w));
        }
        let mut tail = [0u8; 8];
        tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        h.word(u64::from_le_bytes(tail)).word(s.len() as u64)
    }

    fn finish(self) -> u64 {
        self.0
    }
}

/// Entries of one kind, indexed by content hash (open addressing, linear probing; the
/// slot array is twice the capacity, so a probe ends soon).
#[derive(Debug, Clone)]
struct Table<E> {
    entries: Vec<E>,
    slots: Vec<u16>,
    cap: usize,
}

impl<E> Table<E> {
    fn new(cap: usize) -> Table<E> {
        Table {
            entries: Vec::new(),
            slots: vec![0; (cap * 2).next_power_of_two()],
            cap,
        }
    }

    fn is_full(&self) -> bool {
        self.entries.len() >= self.cap
    }

    /// The code of the entry with `hash` for which `eq` holds.
    fn find(&self, hash: u64, eq: impl Fn(&E) -> bool) -> Option<u16> {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            let code = self.slots[i];
            if code == 0 {
                return None;
            }
            if eq(&self.entries[usize::from(code) - 1]) {
                return Some(code);
            }
            i = (i + 1) & mask;
        }
    }

    /// Adds `entry` (not present, table not full) and returns its code.
    fn insert(&mut self, hash: u64, entry: E) -> u16 {
        self.entries.push(entry);
        // The capacity is below u16::MAX (checked in the tests).
        let code = self.entries.len() as u16;
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        while self.slots[i] != 0 {
            i = (i + 1) & mask;
        }
        self.slots[i] = code;
        code
    }

    fn get(&self, code: u16) -> Option<&E> {
        usize::from(code)
            .checked_sub(1)
            .and_then(|i| self.entries.get(i))
    }
}

/// One generation of codes.
#[derive(Debug, Clone)]
struct Generation {
    number: u8,
    lines: Table<LineEntry>,
    targets: Table<Target>,
}

impl Generation {
    fn new(number: u8) -> Generation {
        Generation {
            number,
            lines: Table::new(LINE_CAP),
            targets: Table::new(TARGET_CAP),
        }
    }

    fn codes(&self, d: &RouteDecision, hashes: &Hashes) -> (Option<u16>, Option<u16>) {
        let line = match hashes.line {
            None => Some(0),
            Some(h) => self.lines.find(h, |e| e.matches(d)),
        };
        let target = match (&d.target, hashes.target) {
            (Some(t), Some(h)) => self.targets.find(h, |e| same_target(e, t)),
            _ => Some(0),
        };
        (line, target)
    }
}

/// The content hashes of a decision's entries (`None`: it has none of that kind).
struct Hashes {
    line: Option<u64>,
    target: Option<u64>,
}

/// The current and the previous generation.
#[derive(Debug)]
struct Generations {
    current: Arc<Generation>,
    previous: Option<Arc<Generation>>,
}

impl Generations {
    fn numbered(&self, number: u8) -> Option<&Arc<Generation>> {
        std::iter::once(&self.current)
            .chain(self.previous.as_ref())
            .find(|g| g.number == number)
    }
}

/// A decision's codes: the generation and the codes of its line and target entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Coded {
    /// Generation number.
    pub generation: u8,
    /// Line entry code; 0 for none.
    pub line: u16,
    /// Target entry code; 0 for none.
    pub target: u16,
}

/// Entries from a generation, as `codes()` hands them to Kotlin.
#[derive(Debug)]
pub struct Entries<'a> {
    /// Generation number.
    pub generation: u8,
    /// Code of `lines[0]`, minus one.
    pub line_from: usize,
    /// Line entries.
    pub lines: &'a [LineEntry],
    /// Code of `targets[0]`, minus one.
    pub target_from: usize,
    /// Target entries ([`target_entry`]).
    pub targets: &'a [Target],
}

/// The code table of one engine handle (see the module docs).
#[derive(Debug)]
pub struct Codes {
    generations: ArcSwap<Generations>,
    write: Mutex<()>,
}

impl Default for Codes {
    fn default() -> Self {
        Codes {
            generations: ArcSwap::from_pointee(Generations {
                current: Arc::new(Generation::new(0)),
                previous: None,
            }),
            write: Mutex::new(()),
        }
    }
}

impl Codes {
    /// The codes of decision `d`'s entries (its body limit is part of its line entry),
    /// both from one generation; new entries get codes.
    pub fn encode(&self, d: &RouteDecision) -> Coded {
        let hashes = Hashes {
            line: (d.biz.is_some() || d.line.is_some()).then(|| LineEntry::hash(d)),
            target: d.target.as_ref().map(target_hash),
        };
        let generations = self.generations.load();
        let g = &generations.current;
        if let (Some(line), Some(target)) = g.codes(d, &hashes) {
            return Coded {
                generation: g.number,
                line,
                target,
            };
        }
        drop(generations);
        self.add(d, &hashes)
    }

    /// [`encode`](Self::encode)'s path for a new entry: copies the current generation
    /// with the entries added (or starts the next one when a kind is full).
    #[cold]
    fn add(&self, d: &RouteDecision, hashes: &Hashes) -> Coded {
        let _write = self.write.lock();
        let generations = self.generations.load_full();
        let (line, target) = generations.current.codes(d, hashes);
        let missing_line = line.is_none();
        let missing_target = target.is_none();
        let mut next = (*generations.current).clone();
        let mut previous = generations.previous.clone();
        if (missing_line && next.lines.is_full()) || (missing_target && next.targets.is_full()) {
            previous = Some(generations.current.clone());
            next = Generation::new(next.number.wrapping_add(1));
        }
        let (line, target) = next.codes(d, hashes);
        let line = line.unwrap_or_else(|| {
            let entry = LineEntry::of(d).expect("a line hash has an entry");
            next.lines.insert(hashes.line.unwrap_or_default(), entry)
        });
        let target = target.unwrap_or_else(|| {
            let entry = target_entry(d.target.as_ref().expect("a target hash has a target"));
            next.targets
                .insert(hashes.target.unwrap_or_default(), entry)
        });
        let coded = Coded {
            generation: next.number,
            line,
            target,
        };
        self.generations.store(Arc::new(Generations {
            current: Arc::new(next),
            previous,
        }));
        coded
    }

    /// Runs `f` with the line entry `code` of generation `generation` (`None`: code 0, or
    /// a generation no longer held).
    pub fn with_line<R>(
        &self,
        generation: u8,
        code: u16,
        f: impl FnOnce(Option<&LineEntry>) -> R,
    ) -> R {
        let generations = self.generations.load();
        let entry = generations
            .numbered(generation)
            .and_then(|g| g.lines.get(code));
        f(entry)
    }

    /// Runs `f` with the entries `codes()` answers: those of generation `generation` from
    /// `line_from` and `target_from` on when it is still held, else every entry of the
    /// current generation.
    pub fn with_entries<R>(
        &self,
        generation: u8,
        line_from: usize,
        target_from: usize,
        f: impl FnOnce(Entries<'_>) -> R,
    ) -> R {
        let generations = self.generations.load();
        let (g, line_from, target_from) = match generations.numbered(generation) {
            Some(g) => (g, line_from, target_from),
            None => (&generations.current, 0, 0),
        };
        let line_from = line_from.min(g.lines.entries.len());
        let target_from = target_from.min(g.targets.entries.len());
        f(Entries {
            generation: g.number,
            line_from,
            lines: &g.lines.entries[line_from..],
            target_from,
            targets: &g.targets.entries[target_from..],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use linekit_core::line::{Protocol, Scheme};
    use linekit_core::trace::Reason;

    /// The codes of the decision of [`decision`] under body limit `limit`.
    fn encoded(
        codes: &Codes,
        biz: Option<&str>,
        line: Option<&str>,
        host: Option<&str>,
        limit: u64,
    ) -> Coded {
        codes.encode(&RouteDecision {
            buffer_body_max_bytes: limit,
            ..decision(biz, line, host)
        })
    }

    fn decision(biz: Option<&str>, line: Option<&str>, host: Option<&str>) -> RouteDecision {
        RouteDecision {
            biz: biz.map(Arc::from),
            protocol: Protocol::Http,
            line: line.map(Arc::from),
            reason: Reason::Sticky,
            version_mismatch: false,
            version_header: None,
            target: host.map(|h| Target {
                scheme: Scheme::Https,
                host: Arc::from(h),
                port: None,
                path_prefix: None,
                rest_at: 8,
            }),
            mode: linekit_core::line::rollout::RolloutMode::On,
            would: None,
            max_retries: 2,
            buffer_body_max_bytes: 65_536,
        }
    }

    #[test]
    fn methods_have_codes_below_the_other_code() {
        assert_eq!(method(0), Some("GET"));
        for m in METHODS {
            assert_eq!(method(method_code(m)), Some(m));
        }
        assert_eq!(
            method_code("get"),
            OTHER_METHOD,
            "methods are case-sensitive"
        );
        assert_eq!(method(METHODS.len() as u64), None);
        assert_eq!(method(OTHER_METHOD), None);
        assert!((METHODS.len() as u64) < OTHER_METHOD);
        assert!(LINE_CAP < usize::from(u16::MAX) && TARGET_CAP < usize::from(u16::MAX));
    }

    #[test]
    fn equal_entries_share_a_code_and_new_ones_get_the_next() {
        let codes = Codes::default();
        let a = encoded(&codes, Some("spot"), Some("ali"), Some("a.test"), 10);
        assert_eq!(
            a,
            Coded {
                generation: 0,
                line: 1,
                target: 1
            }
        );
        // Equal content in other allocations (a new config) keeps the codes.
        let again = encoded(&codes, Some("spot"), Some("ali"), Some("a.test"), 10);
        assert_eq!(again, a);
        let other_limit = encoded(&codes, Some("spot"), Some("ali"), Some("a.test"), 11);
        assert_eq!((other_limit.line, other_limit.target), (2, 1));
        let none = encoded(&codes, None, None, None, 10);
        assert_eq!((none.line, none.target), (0, 0));
        let biz_only = encoded(&codes, Some("spot"), None, None, 10);
        assert_eq!((biz_only.line, biz_only.target), (3, 0));
        codes.with_line(0, 2, |e| {
            let e = e.expect("entry 2");
            assert_eq!(
                (e.line.as_deref(), e.buffer_body_max_bytes),
                (Some("ali"), 11)
            );
        });
        codes.with_line(0, 0, |e| assert!(e.is_none()));
        codes.with_line(1, 1, |e| assert!(e.is_none(), "no generation 1 yet"));
        codes.with_entries(0, 1, 1, |e| {
            assert_eq!((e.generation, e.line_from, e.target_from), (0, 1, 1));
            assert_eq!(e.lines.len(), 2);
            assert!(e.targets.is_empty());
        });
        codes.with_entries(9, 1, 1, |e| {
            assert_eq!((e.generation, e.line_from, e.lines.len()), (0, 0, 3));
        });
    }

    #[test]
    fn a_full_kind_starts_a_new_generation_and_the_previous_stays_readable() {
        let codes = Codes::default();
        let first = encoded(&codes, Some("spot"), Some("ali"), Some("t0.test"), 1);
        for i in 1..TARGET_CAP {
            let c = encoded(&codes, None, None, Some(&format!("t{i}.test")), 1);
            assert_eq!((c.generation, usize::from(c.target)), (0, i + 1));
        }
        let next = encoded(&codes, Some("spot"), Some("ali"), Some("new.test"), 1);
        assert_eq!(
            next,
            Coded {
                generation: 1,
                line: 1,
                target: 1
            },
            "both entries of one answer come from the new generation"
        );
        codes.with_line(0, first.line, |e| {
            assert_eq!(e.and_then(|e| e.line.as_deref()), Some("ali"), "previous");
        });
        codes.with_entries(0, 0, TARGET_CAP - 1, |e| {
            assert_eq!((e.generation, e.targets.len()), (0, 1));
            assert_eq!(&*e.targets[0].host, format!("t{}.test", TARGET_CAP - 1));
        });
        // One more reset: generation 0 is gone.
        for i in 1..TARGET_CAP {
            encoded(&codes, None, None, Some(&format!("u{i}.test")), 1);
        }
        let third = encoded(&codes, None, None, Some("last.test"), 1);
        assert_eq!(third.generation, 2);
        codes.with_line(0, first.line, |e| assert!(e.is_none()));
        codes.with_line(1, 1, |e| assert!(e.is_some()));
    }

    #[test]
    fn colliding_hashes_are_told_apart_by_content() {
        let mut t: Table<&str> = Table::new(4);
        assert_eq!(t.insert(7, "a"), 1);
        assert_eq!(t.insert(7, "b"), 2);
        assert_eq!(t.find(7, |e| *e == "b"), Some(2));
        assert_eq!(t.find(7, |e| *e == "c"), None);
        assert_eq!(t.get(2), Some(&"b"));
        assert_eq!(t.get(0), None);
    }

    #[test]
    fn the_hash_tells_none_from_empty_and_reads_every_byte() {
        let h = |s: Option<&str>| Fx::default().text(s).finish();
        assert_ne!(h(None), h(Some("")));
        assert_ne!(h(Some("abcdefgh1")), h(Some("abcdefgh2")));
        assert_ne!(h(Some("a")), h(Some("a\0")));
    }
}
