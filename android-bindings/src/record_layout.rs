//! How a record that crosses the JNI path is declared: its layout as data, so that the
//! Rust encoder, the generated Kotlin encoder/decoder, the generated format document and
//! the JVM drift test all read the same declaration.
//!
//! Three shapes cover every record:
//!
//! - a [`BitRecord`] is one Java `int` or `long` of unsigned fields, the first declared
//!   at bit 0 and each next one right above it; [`bit_record!`] declares one as a Rust
//!   struct with `to_bits`/`from_bits` and its [`BitRecord`] layout;
//! - a [`ByteRecord`] is a `byte[]`: big-endian unsigned head fields, then entries that
//!   each start with a one-byte length;
//! - a [`TextRecord`] is a group of consecutive elements of a `String[]` (null for none);
//! - a [`ListRecord`] is one `String` of items joined by a separator, each item one or
//!   more parts joined by the same separator.
//!
//! [`layout_lines`] is the layout as `record\tfield\tat\twidth` lines: the JNI export
//! `records()` hands the loaded library's lines to the JVM, and a test there compares them
//! with what the generated Kotlin was built from, so a stale generated file fails.

/// The Java word a [`BitRecord`] travels in.
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

/// One field of a [`BitRecord`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitField {
    /// snake_case name.
    pub name: &'static str,
    /// Width in bits (1 for a flag).
    pub bits: u32,
    /// What the value means.
    pub doc: &'static str,
}

/// A record packed into one Java `int` or `long`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitRecord {
    /// CamelCase name (the Kotlin object's name too).
    pub name: &'static str,
    /// The word it travels in.
    pub word: Word,
    /// Who writes it.
    pub writer: Writer,
    /// What it is for.
    pub doc: &'static str,
    /// Fields from bit 0 up.
    pub fields: &'static [BitField],
}

impl BitRecord {
    /// Bits used by all fields.
    pub const fn total_bits(&self) -> u32 {
        let mut total = 0;
        let mut i = 0;
        while i < self.fields.len() {
            total += self.fields[i].bits;
            i += 1;
        }
        total
    }

    /// `(field, shift)` of every field, from bit 0 up.
    pub fn shifts(&self) -> Vec<(&BitField, u32)> {
        let mut shift = 0;
        self.fields
            .iter()
            .map(|f| {
                let at = shift;
                shift += f.bits;
                (f, at)
            })
            .collect()
    }
}

/// One big-endian unsigned field at the head of a [`ByteRecord`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteField {
    /// snake_case name.
    pub name: &'static str,
    /// Width in bytes (1 to 7).
    pub bytes: usize,
    /// What the value means.
    pub doc: &'static str,
}

/// A `byte[]`: head fields, then entries of one length byte followed by that many bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteRecord {
    /// CamelCase name.
    pub name: &'static str,
    /// Who writes it.
    pub writer: Writer,
    /// What it is for.
    pub doc: &'static str,
    /// Head fields, from offset 0.
    pub head: &'static [ByteField],
    /// What one entry holds.
    pub entry_doc: &'static str,
}

impl ByteRecord {
    /// Bytes before the first entry.
    pub fn head_len(&self) -> usize {
        self.head.iter().map(|f| f.bytes).sum()
    }

    /// Appends the head with `values` (one per head field, in order; a value is cut to its
    /// field's low bytes) to `out`.
    pub fn write_head(&self, values: &[u64], out: &mut Vec<u8>) {
        debug_assert_eq!(
            values.len(),
            self.head.len(),
            "{}: one value per field",
            self.name
        );
        for (f, v) in self.head.iter().zip(values) {
            out.extend_from_slice(&v.to_be_bytes()[8 - f.bytes..]);
        }
    }

    /// Appends one entry (its length byte, then `bytes`, at most 255) to `out`.
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

    /// The head values and the entries of `record`, or `None` when it is malformed (shorter
    /// than its head, or an entry running past the end).
    pub fn read<'a>(&self, record: &'a [u8]) -> Option<(Vec<u64>, Vec<&'a [u8]>)> {
        let mut at = 0;
        let mut head = Vec::with_capacity(self.head.len());
        for f in self.head {
            let b = record.get(at..at + f.bytes)?;
            head.push(b.iter().fold(0u64, |n, &b| n << 8 | u64::from(b)));
            at += f.bytes;
        }
        let mut entries = Vec::new();
        while at < record.len() {
            let len = usize::from(record[at]);
            entries.push(record.get(at + 1..at + 1 + len)?);
            at += 1 + len;
        }
        Some((head, entries))
    }

    /// `(field, offset)` of every head field.
    pub fn offsets(&self) -> Vec<(&ByteField, usize)> {
        let mut at = 0;
        self.head
            .iter()
            .map(|f| {
                let offset = at;
                at += f.bytes;
                (f, offset)
            })
            .collect()
    }
}

/// The kind of a [`TextField`]'s value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// A string; null for none.
    Str,
    /// An unsigned decimal number; null for none.
    Number,
}

/// One element of a [`TextRecord`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextField {
    /// snake_case name.
    pub name: &'static str,
    /// Its kind.
    pub kind: Text,
    /// What the value means.
    pub doc: &'static str,
}

/// A group of consecutive `String[]` elements, one per field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextRecord {
    /// CamelCase name.
    pub name: &'static str,
    /// Who writes it.
    pub writer: Writer,
    /// What it is for.
    pub doc: &'static str,
    /// Fields in element order.
    pub fields: &'static [TextField],
}

/// One `String` of items, every part of every item followed by `separator` except the
/// last; a part never contains the separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListRecord {
    /// CamelCase name.
    pub name: &'static str,
    /// Who writes it.
    pub writer: Writer,
    /// What it is for.
    pub doc: &'static str,
    /// The separator.
    pub separator: char,
    /// The parts of one item, in order (snake_case names).
    pub parts: &'static [&'static str],
}

impl ListRecord {
    /// The items of `joined`, each as its parts; a trailing incomplete item is dropped.
    pub fn items<'a>(&self, joined: &'a str) -> impl Iterator<Item = Vec<&'a str>> + 'a {
        let width = self.parts.len().max(1);
        let mut parts = (!joined.is_empty()).then(|| joined.split(self.separator));
        std::iter::from_fn(move || {
            let parts = parts.as_mut()?;
            let item: Vec<&str> = parts.by_ref().take(width).collect();
            (item.len() == width).then_some(item)
        })
    }
}

/// Every record of the JNI path, by shape.
#[derive(Debug, Clone, Copy)]
pub struct Records {
    /// `int`/`long` records.
    pub bits: &'static [BitRecord],
    /// `byte[]` records.
    pub bytes: &'static [ByteRecord],
    /// `String[]` records.
    pub texts: &'static [TextRecord],
    /// Joined `String` records.
    pub lists: &'static [ListRecord],
}

/// `record\tfield\tat\twidth` per field: bit shift and width for bit records, byte offset
/// and width for byte records (the entries as `entries`, at the head's end, width 1: the
/// length byte), element index and 1 for text records, part index and the separator's
/// code point for list records.
pub fn layout_lines(records: &Records) -> String {
    let mut out = String::new();
    let mut line = |record: &str, field: &str, at: usize, width: usize| {
        out.push_str(&format!("{record}\t{field}\t{at}\t{width}\n"));
    };
    for r in records.bits {
        for (f, shift) in r.shifts() {
            line(r.name, f.name, shift as usize, f.bits as usize);
        }
    }
    for r in records.bytes {
        for (f, at) in r.offsets() {
            line(r.name, f.name, at, f.bytes);
        }
        line(r.name, "entries", r.head_len(), 1);
    }
    for r in records.texts {
        for (i, f) in r.fields.iter().enumerate() {
            line(r.name, f.name, i, 1);
        }
    }
    for r in records.lists {
        for (i, part) in r.parts.iter().enumerate() {
            line(r.name, part, i, r.separator as usize);
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

/// Declares a [`BitRecord`]: a Rust struct with one `u64` per field, `to_bits` (each
/// value masked to its width; a value too wide is a bug, caught in debug builds) and
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
            pub const LAYOUT: $crate::record_layout::BitRecord = $crate::record_layout::BitRecord {
                name: stringify!($name),
                word: $crate::record_layout::Word::$word,
                writer: $crate::record_layout::Writer::$writer,
                doc: concat!($($doc, "\n"),*),
                fields: &[$($crate::record_layout::BitField {
                    name: stringify!($field),
                    bits: $bits,
                    doc: concat!($($fdoc, "\n"),*),
                },)*],
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
            $name::LAYOUT.total_bits() <= $crate::record_layout::Word::$word.bits(),
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
            .shifts()
            .into_iter()
            .map(|(f, s)| (f.name, s))
            .collect();
        assert_eq!(shifts, [("low", 0), ("flag", 3), ("high", 4)]);
        assert_eq!(Probe::LAYOUT.fields[1].doc.trim(), "A flag.");
        assert_eq!(Probe::LAYOUT.total_bits(), 32);
    }

    #[test]
    fn layout_lines_name_every_field_with_its_place() {
        const BYTES: ByteRecord = ByteRecord {
            name: "B",
            writer: Writer::Rust,
            doc: "",
            head: &[
                ByteField {
                    name: "a",
                    bytes: 4,
                    doc: "",
                },
                ByteField {
                    name: "b",
                    bytes: 2,
                    doc: "",
                },
            ],
            entry_doc: "",
        };
        const TEXT: TextRecord = TextRecord {
            name: "T",
            writer: Writer::Rust,
            doc: "",
            fields: &[
                TextField {
                    name: "x",
                    kind: Text::Str,
                    doc: "",
                },
                TextField {
                    name: "y",
                    kind: Text::Number,
                    doc: "",
                },
            ],
        };
        const LIST: ListRecord = ListRecord {
            name: "L",
            writer: Writer::Kotlin,
            doc: "",
            separator: '\n',
            parts: &["k", "v"],
        };
        let records = Records {
            bits: &[Probe::LAYOUT],
            bytes: &[BYTES],
            texts: &[TEXT],
            lists: &[LIST],
        };
        assert_eq!(
            layout_lines(&records),
            "Probe\tlow\t0\t3\nProbe\tflag\t3\t1\nProbe\thigh\t4\t28\n\
             B\ta\t0\t4\nB\tb\t4\t2\nB\tentries\t6\t1\nT\tx\t0\t1\nT\ty\t1\t1\n\
             L\tk\t0\t10\nL\tv\t1\t10\n"
        );
    }

    #[test]
    fn byte_records_write_big_endian_heads_and_length_prefixed_entries() {
        const R: ByteRecord = ByteRecord {
            name: "R",
            writer: Writer::Rust,
            doc: "",
            head: &[
                ByteField {
                    name: "a",
                    bytes: 4,
                    doc: "",
                },
                ByteField {
                    name: "b",
                    bytes: 1,
                    doc: "",
                },
            ],
            entry_doc: "",
        };
        let mut out = Vec::new();
        R.write_head(&[0x0102_0304, 9], &mut out);
        R.write_entry(&[7, 8], &mut out);
        R.write_entry(&[], &mut out);
        assert_eq!(out, [1, 2, 3, 4, 9, 2, 7, 8, 0]);
        let (head, entries) = R.read(&out).expect("well formed");
        assert_eq!(head, [0x0102_0304, 9]);
        assert_eq!(entries, [&[7u8, 8][..], &[][..]]);
        assert!(R.read(&out[..3]).is_none(), "short head");
        assert!(R.read(&out[..7]).is_none(), "entry past the end");
    }

    #[test]
    fn list_items_come_in_whole_groups() {
        let pairs = ListRecord {
            name: "L",
            writer: Writer::Kotlin,
            doc: "",
            separator: '\n',
            parts: &["k", "v"],
        };
        let items: Vec<_> = pairs.items("a\n1\nb\n\ndangling").collect();
        assert_eq!(items, [vec!["a", "1"], vec!["b", ""]]);
        assert_eq!(pairs.items("").count(), 0);
        let ids = ListRecord {
            parts: &["id"],
            ..pairs
        };
        let items: Vec<_> = ids.items("x\ny").collect();
        assert_eq!(items, [vec!["x"], vec!["y"]]);
    }

    #[test]
    fn masks() {
        assert_eq!(mask(1), 1);
        assert_eq!(mask(16), 0xffff);
        assert_eq!(mask(64), u64::MAX);
    }
}
