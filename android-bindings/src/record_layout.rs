//! How a record that crosses the JNI path is declared: its layout as data, so that the
//! Rust encoder, the generated Kotlin encoder/decoder, the generated format document and
//! the JVM drift test all read the same declaration.
//!
//! A [`Record`] is a name, who writes it, a doc and its [`Field`]s; its [`Shape`] says how
//! the fields travel:
//!
//! - [`Shape::Bits`]: one Java `int` or `long` of unsigned fields, the first declared at
//!   bit 0 and each next one right above it (widths in bits); [`bit_record!`] declares one
//!   as a Rust struct with `to_bits`/`from_bits` and its layout;
//! - [`Shape::Bytes`]: a `byte[]`: big-endian unsigned head fields (widths in bytes), then
//!   entries that each start with a one-byte length;
//! - [`Shape::Texts`]: consecutive elements of a `String[]`, one per field (null for none);
//! - [`Shape::List`]: one `String` of items joined by a separator, each item one or more
//!   parts (the fields) joined by the same separator.
//!
//! [`layout_lines`] is the layout as `record\tfield\tat\twidth` lines: the JNI export
//! `records()` hands the loaded library's lines to the JVM, and a test there compares them
//! with what the generated Kotlin was built from, so a stale generated file fails.

/// The Java word a [`Shape::Bits`] record travels in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Word {
    /// `int`: 32 bits.
    Int,
    /// `long`: 64 bits.
    Long,
}

impl Word {
    /// Width in bits.
    pub const fn bits(self) -> u32 {
        match self {
            Word::Int => 32,
            Word::Long => 64,
        }
    }

    /// The Java type name.
    pub fn java(self) -> &'static str {
        match self {
            Word::Int => "int",
            Word::Long => "long",
        }
    }
}

/// Which side writes a record; the other side reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// Kotlin packs it, Rust unpacks it (call arguments).
    Kotlin,
    /// Rust packs it, Kotlin unpacks it (answers).
    Rust,
}

impl Writer {
    /// `Kotlin → Rust` or `Rust → Kotlin`.
    pub fn direction(self) -> &'static str {
        match self {
            Writer::Kotlin => "Kotlin → Rust",
            Writer::Rust => "Rust → Kotlin",
        }
    }
}

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value {
    /// An unsigned number (in decimal in a text element).
    Unsigned,
    /// A string.
    Text,
}

/// One field of a [`Record`]: its snake_case `name`; its `width` — bits in a
/// [`Shape::Bits`] record, bytes in a [`Shape::Bytes`] head, 1 (one element or part)
/// otherwise; what it holds (`value`); and what the value means (`doc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)]
pub struct Field {
    pub name: &'static str,
    pub width: u32,
    pub value: Value,
    pub doc: &'static str,
}

impl Field {
    /// An unsigned field `width` bits or bytes wide.
    pub const fn unsigned(name: &'static str, width: u32, doc: &'static str) -> Field {
        Field {
            name,
            width,
            value: Value::Unsigned,
            doc,
        }
    }

    /// A string element or part.
    pub const fn text(name: &'static str, doc: &'static str) -> Field {
        Field {
            name,
            width: 1,
            value: Value::Text,
            doc,
        }
    }

    /// A decimal number element.
    pub const fn number(name: &'static str, doc: &'static str) -> Field {
        Field::unsigned(name, 1, doc)
    }
}

/// How a [`Record`]'s fields travel (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One Java word.
    Bits(Word),
    /// A `byte[]`: the head fields, then length-prefixed entries holding `entry`.
    Bytes {
        /// What one entry holds.
        entry: &'static str,
    },
    /// Consecutive `String[]` elements.
    Texts,
    /// One `String` joined by `separator`.
    List {
        /// Between parts and items; a part never contains it.
        separator: char,
    },
}

/// A record that crosses the JNI path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// CamelCase name (the Kotlin object's name too).
    pub name: &'static str,
    /// How it travels.
    pub shape: Shape,
    /// Who writes it.
    pub writer: Writer,
    /// What it is for.
    pub doc: &'static str,
    /// Its fields, in order.
    pub fields: &'static [Field],
}

impl Record {
    /// The sum of the fields' widths.
    pub const fn total_width(&self) -> u32 {
        let mut total = 0;
        let mut i = 0;
        while i < self.fields.len() {
            total += self.fields[i].width;
            i += 1;
        }
        total
    }

    /// `(field, at)` of every field: its bit shift, byte offset, element or part index
    /// (the sum of the widths before it).
    pub fn places(&self) -> Vec<(&Field, usize)> {
        let mut at = 0;
        self.fields
            .iter()
            .map(|f| {
                let place = at;
                at += f.width as usize;
                (f, place)
            })
            .collect()
    }

    /// Appends the head of a [`Shape::Bytes`] record with `values` (one per field, in
    /// order; a value is cut to its field's low bytes) to `out`.
    pub fn write_head(&self, values: &[u64], out: &mut Vec<u8>) {
        debug_assert_eq!(
            values.len(),
            self.fields.len(),
            "{}: one value per field",
            self.name
        );
        for (f, v) in self.fields.iter().zip(values) {
            out.extend_from_slice(&v.to_be_bytes()[8 - f.width as usize..]);
        }
    }

    /// Appends one entry of a [`Shape::Bytes`] record (its length byte, then `bytes`, at
    /// most 255) to `out`.
    pub fn write_entry(&self, bytes: &[u8], out: &mut Vec<u8>) {
        debug_assert!(
            bytes.len() <= 255,
            "{}: an entry of {} bytes",
            self.name,
            bytes.len()
        );
        out.push(bytes.len() as u8);
        out.extend_from_slice(bytes);
    }

    /// The head values and the entries of the [`Shape::Bytes`] record `record`, or `None`
    /// when it is malformed (shorter than its head, or an entry running past the end).
    pub fn read<'a>(&self, record: &'a [u8]) -> Option<(Vec<u64>, Vec<&'a [u8]>)> {
        let mut at = 0;
        let mut head = Vec::with_capacity(self.fields.len());
        for f in self.fields {
            let b = record.get(at..at + f.width as usize)?;
            head.push(b.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)));
            at += f.width as usize;
        }
        let mut entries = Vec::new();
        while at < record.len() {
            let len = usize::from(record[at]);
            entries.push(record.get(at + 1..at + 1 + len)?);
            at += 1 + len;
        }
        Some((head, entries))
    }

    /// The items of the [`Shape::List`] record `joined`, each as its parts; a trailing
    /// incomplete item is dropped.
    pub fn items<'a>(&self, joined: &'a str) -> impl Iterator<Item = Vec<&'a str>> + 'a {
        let separator = match self.shape {
            Shape::List { separator } => separator,
            _ => '\n',
        };
        let width = self.fields.len().max(1);
        let mut parts = (!joined.is_empty()).then(|| joined.split(separator));
        std::iter::from_fn(move || {
            let parts = parts.as_mut()?;
            let item: Vec<&str> = parts.by_ref().take(width).collect();
            (item.len() == width).then_some(item)
        })
    }
}

/// `record\tfield\tat\twidth` per field: [`Record::places`] and the field's width, except
/// that a list part's width is its separator's code point; a [`Shape::Bytes`] record adds
/// `entries` at the head's end, width 1 (the length byte).
pub fn layout_lines(records: &[Record]) -> String {
    let mut out = String::new();
    for r in records {
        let mut line = |field: &str, at: usize, width: usize| {
            out.push_str(&format!("{}\t{field}\t{at}\t{width}\n", r.name));
        };
        for (f, at) in r.places() {
            let width = match r.shape {
                Shape::List { separator } => separator as usize,
                _ => f.width as usize,
            };
            line(f.name, at, width);
        }
        if let Shape::Bytes { .. } = r.shape {
            line("entries", r.total_width() as usize, 1);
        }
    }
    out
}

/// The mask of the low `bits` bits.
pub const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Declares a [`Shape::Bits`] record: a Rust struct with one `u64` per field, `to_bits`
/// (each value masked to its width; a value too wide is a bug, caught in debug builds) and
/// `from_bits`, and its layout as `LAYOUT`. The fields' `///` docs become the layout's
/// docs. A compile-time check fails when the fields do not fit the word.
macro_rules! bit_record {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident: $word:ident, written by $writer:ident {
            $( $(#[doc = $fdoc:literal])* $field:ident: $bits:literal, )*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        $vis struct $name {
            $( $(#[doc = $fdoc])* pub $field: u64, )*
        }

        impl $name {
            /// The declared layout.
            pub const LAYOUT: $crate::record_layout::Record = $crate::record_layout::Record {
                name: stringify!($name),
                shape: $crate::record_layout::Shape::Bits($crate::record_layout::Word::$word),
                writer: $crate::record_layout::Writer::$writer,
                doc: concat!($($doc, "\n"),*),
                fields: &[$($crate::record_layout::Field::unsigned(
                    stringify!($field),
                    $bits,
                    concat!($($fdoc, "\n"),*),
                ),)*],
            };

            /// The record as its word's bits (for an `int` record, the low 32).
            #[allow(unused_assignments)]
            pub fn to_bits(self) -> u64 {
                let mut word = 0u64;
                let mut shift = 0u32;
                $(
                    debug_assert!(
                        self.$field <= $crate::record_layout::mask($bits),
                        concat!(stringify!($name), ".", stringify!($field), " does not fit")
                    );
                    word |= (self.$field & $crate::record_layout::mask($bits)) << shift;
                    shift += $bits;
                )*
                word
            }

            /// The record in `word` (bits above the fields are ignored).
            #[allow(unused_assignments)]
            pub fn from_bits(word: u64) -> Self {
                let mut shift = 0u32;
                $(
                    let $field = (word >> shift) & $crate::record_layout::mask($bits);
                    shift += $bits;
                )*
                $name { $($field),* }
            }
        }

        const _: () = assert!(
            $name::LAYOUT.total_width() <= $crate::record_layout::Word::$word.bits(),
            concat!(stringify!($name), "'s fields do not fit its word")
        );
    };
}
pub(crate) use bit_record;

#[cfg(test)]
mod tests {
    use super::*;

    bit_record! {
        /// A test record.
        struct Probe: Int, written by Rust {
            /// Low.
            low: 3,
            /// A flag.
            flag: 1,
            /// High.
            high: 28,
        }
    }

    /// A test record of `shape` with `fields`.
    const fn record(name: &'static str, shape: Shape, fields: &'static [Field]) -> Record {
        Record {
            name,
            shape,
            writer: Writer::Rust,
            doc: "",
            fields,
        }
    }

    const HEAD: Record = record(
        "B",
        Shape::Bytes { entry: "" },
        &[Field::unsigned("a", 4, ""), Field::unsigned("b", 1, "")],
    );
    const PAIRS: Record = record(
        "L",
        Shape::List { separator: '\n' },
        &[Field::text("k", ""), Field::text("v", "")],
    );

    #[test]
    fn fields_sit_from_bit_zero_up_in_declaration_order() {
        let p = Probe {
            low: 5,
            flag: 1,
            high: (1 << 28) - 1,
        };
        let bits = p.to_bits();
        assert_eq!(bits & 0b111, 5);
        assert_eq!((bits >> 3) & 1, 1);
        assert_eq!(bits >> 4, (1 << 28) - 1);
        assert_eq!(
            bits,
            u64::from(u32::MAX) - 2,
            "exactly the 32 bits of an int"
        );
        assert_eq!(Probe::from_bits(bits), p);
        assert_eq!(
            Probe::from_bits(bits | (0xff << 32)),
            p,
            "bits above ignored"
        );
        let shifts: Vec<_> = Probe::LAYOUT
            .places()
            .into_iter()
            .map(|(f, s)| (f.name, s))
            .collect();
        assert_eq!(shifts, [("low", 0), ("flag", 3), ("high", 4)]);
        assert_eq!(Probe::LAYOUT.fields[1].doc.trim(), "A flag.");
        assert_eq!(Probe::LAYOUT.total_width(), 32);
    }

    #[test]
    fn layout_lines_name_every_field_with_its_place() {
        const TEXT: Record = record(
            "T",
            Shape::Texts,
            &[Field::text("x", ""), Field::number("y", "")],
        );
        assert_eq!(
            layout_lines(&[Probe::LAYOUT, HEAD, TEXT, PAIRS]),
            "Probe\tlow\t0\t3\nProbe\tflag\t3\t1\nProbe\thigh\t4\t28\n\
             B\ta\t0\t4\nB\tb\t4\t1\nB\tentries\t5\t1\nT\tx\t0\t1\nT\ty\t1\t1\n\
             L\tk\t0\t10\nL\tv\t1\t10\n"
        );
    }

    #[test]
    fn byte_records_write_big_endian_heads_and_length_prefixed_entries() {
        let mut out = Vec::new();
        HEAD.write_head(&[0x0102_0304, 9], &mut out);
        HEAD.write_entry(&[7, 8], &mut out);
        HEAD.write_entry(&[], &mut out);
        assert_eq!(out, [1, 2, 3, 4, 9, 2, 7, 8, 0]);
        let (head, entries) = HEAD.read(&out).expect("well formed");
        assert_eq!(head, [0x0102_0304, 9]);
        assert_eq!(entries, [&[7u8, 8][..], &[][..]]);
        assert!(HEAD.read(&out[..3]).is_none(), "short head");
        assert!(HEAD.read(&out[..7]).is_none(), "entry past the end");
    }

    #[test]
    fn list_items_come_in_whole_groups() {
        let items: Vec<_> = PAIRS.items("a\n1\nb\n\ndangling").collect();
        assert_eq!(items, [vec!["a", "1"], vec!["b", ""]]);
        assert_eq!(PAIRS.items("").count(), 0);
        const IDS: Record = record(
            "I",
            Shape::List { separator: '\n' },
            &[Field::text("id", "")],
        );
        let items: Vec<_> = IDS.items("x\ny").collect();
        assert_eq!(items, [vec!["x"], vec!["y"]]);
    }

    #[test]
    fn masks() {
        assert_eq!(mask(1), 1);
        assert_eq!(mask(16), 0xffff);
        assert_eq!(mask(64), u64::MAX);
    }
}
