//! Wire vocabularies: the fieldless enums whose values cross into other languages, replay
//! scenarios, traces and state files. [`vocabulary`] declares every one of them, in one
//! place; the modules that give them behaviour re-export them where they belong
//! (`crate::line::Outcome`, `crate::trace::Reason`, ...).
//!
//! Each such enum is declared exactly once, with [`wire_enum!`]: the variant, its doc and
//! its snake_case wire name sit on one line, and the macro derives everything the other
//! sides need from that single list:
//!
//! - `ALL`, every variant in declaration order;
//! - `code()`, the variant's position in `ALL` (the number the JNI path carries) and
//!   `from_code`, its inverse;
//! - `as_str()` / [`std::str::FromStr`] / [`std::fmt::Display`], the wire name;
//! - `doc()`, the variant's doc text (the generated Kotlin uses it as KDoc).
//!
//! The Kotlin enums of the bindings are generated from [`WireEnum::table`] at build time,
//! so a variant added, dropped or moved here changes the Kotlin side with it; the bindings
//! also export the same tables through JNI so that a JVM test catches a stale generated
//! file.

pub mod vocabulary;

pub use vocabulary::kotlin_vocabularies;

/// `(rust name, wire name, doc)` of every variant of one wire enum, in code order.
pub type Table = Vec<(&'static str, &'static str, &'static str)>;

/// A fieldless enum with a stable wire vocabulary (see the module docs).
pub trait WireEnum: Copy + Sized + 'static {
    /// The vocabulary's name (`outcome`, `connect_error`, …).
    const KIND: &'static str;
    /// Every variant in declaration order: a variant's code is its index.
    fn all() -> &'static [Self];
    /// The snake_case wire name.
    fn wire_name(self) -> &'static str;
    /// The variant's doc text.
    fn doc_text(self) -> &'static str;
    /// The variant's name in Rust (`Http4xx`).
    fn rust_name(self) -> &'static str;

    /// Every variant's wire name, in code order.
    fn names() -> Vec<&'static str> {
        Self::all().iter().map(|v| v.wire_name()).collect()
    }

    /// `(rust name, wire name, doc)` of every variant, in code order.
    fn table() -> Table {
        Self::all()
            .iter()
            .map(|v| (v.rust_name(), v.wire_name(), v.doc_text()))
            .collect()
    }
}

/// How the parse error of a wire enum lists the names it knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// `expected one of a, b, c` (the default).
    OneOf,
    /// `expected a, b or c`.
    Or,
}

/// The [`std::str::FromStr`] error of a wire enum of kind `kind` for the unknown name `s`:
/// `unknown KIND "s" (expected …)`, the known `names` listed as `listing` says.
pub fn unknown_name(kind: &str, s: &str, names: &[&str], listing: Listing) -> String {
    let expected = match (listing, names.split_last()) {
        (Listing::Or, Some((last, rest))) if !rest.is_empty() => {
            format!("{} or {last}", rest.join(", "))
        }
        _ => format!("one of {}", names.join(", ")),
    };
    // Quoted by hand, not with `{s:?}`: the release build prints no `Debug` output.
    format!(
        "unknown {kind} \"{}\" (expected {expected})",
        s.escape_debug()
    )
}

/// Declares a wire enum: `Variant = "wire_name",` per line, each with its `///` doc.
///
/// The enum always derives `Debug, Clone, Copy, PartialEq, Eq, Hash`; further attributes
/// go before `enum`. `, default = Variant` after the kind implements [`Default`];
/// `, listing = Or` makes the parse error list the names as `a, b or c` (see [`Listing`]).
///
/// ```ignore
/// wire_enum! {
///     /// What happened.
///     pub enum Outcome: "outcome", default = Ok {
///         /// The line answered.
///         Ok = "ok",
///     }
/// }
/// ```
#[macro_export]
macro_rules! wire_enum {
    (@listing) => {
        $crate::wire::Listing::OneOf
    };
    (@listing $listing:ident) => {
        $crate::wire::Listing::$listing
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident : $kind:literal
            $(, default = $default:ident)? $(, listing = $listing:ident)? {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $wire:literal,
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                $(#[doc = $doc])*
                $variant,
            )+
        }

        impl $name {
            /// Every variant, in declaration order (a variant's code is its index).
            pub const ALL: [$name; [$(stringify!($variant)),+].len()] = [$($name::$variant),+];

            /// The wire name.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }

            /// The position in [`Self::ALL`]: the code carried by the JNI path.
            pub fn code(self) -> u8 {
                self as u8
            }

            /// The variant with code `code`, if any.
            pub fn from_code(code: i32) -> Option<Self> {
                usize::try_from(code).ok().and_then(|i| Self::ALL.get(i).copied())
            }
        }

        impl $crate::wire::WireEnum for $name {
            const KIND: &'static str = $kind;
            fn all() -> &'static [Self] {
                &Self::ALL
            }
            fn wire_name(self) -> &'static str {
                self.as_str()
            }
            fn doc_text(self) -> &'static str {
                match self {
                    $($name::$variant => concat!($($doc, "\n",)* ""),)+
                }
            }
            fn rust_name(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant),)+
                }
            }
        }

        $(
            impl ::std::default::Default for $name {
                fn default() -> Self {
                    $name::$default
                }
            }
        )?

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::ALL.iter().copied().find(|v| v.as_str() == s).ok_or_else(|| {
                    $crate::wire::unknown_name(
                        $kind,
                        s,
                        &<Self as $crate::wire::WireEnum>::names(),
                        $crate::wire_enum!(@listing $($listing)?),
                    )
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_vocabulary_has_unique_snake_case_names_and_codes_in_order() {
        for (kind, table) in kotlin_vocabularies() {
            let names: HashSet<_> = table.iter().map(|(_, w, _)| *w).collect();
            assert_eq!(names.len(), table.len(), "{kind}: duplicate wire names");
            for (_, wire, doc) in &table {
                assert!(
                    wire.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{kind}: {wire}"
                );
                assert!(!doc.trim().is_empty(), "{kind}: {wire} has no doc");
            }
        }
    }

    #[test]
    fn codes_round_trip() {
        use crate::line::Outcome;
        for (i, o) in Outcome::ALL.iter().enumerate() {
            assert_eq!(usize::from(o.code()), i);
            assert_eq!(Outcome::from_code(i as i32), Some(*o));
            assert_eq!(o.as_str().parse::<Outcome>(), Ok(*o));
        }
        assert_eq!(Outcome::from_code(-1), None);
        assert_eq!(Outcome::from_code(Outcome::ALL.len() as i32), None);
        let err = "bogus".parse::<Outcome>().unwrap_err();
        assert!(
            err.contains("unknown outcome") && err.contains("http_4xx"),
            "{err}"
        );
    }

    #[test]
    fn parse_errors_list_the_names_as_the_enum_says() {
        let names = ["a", "b", "c"];
        assert_eq!(
            unknown_name("thing", "x", &names, Listing::OneOf),
            r#"unknown thing "x" (expected one of a, b, c)"#
        );
        assert_eq!(
            unknown_name("thing", "x", &names, Listing::Or),
            r#"unknown thing "x" (expected a, b or c)"#
        );
        assert_eq!(
            "udp".parse::<crate::line::Protocol>().unwrap_err(),
            r#"unknown protocol "udp" (expected http or ws)"#
        );
        assert_eq!(
            "bind"
                .parse::<crate::dns::providers::ProviderFormat>()
                .unwrap_err(),
            r#"unknown provider format "bind" (expected aliyun, aliyun-batch, dnspod, doh-json or doh-wire)"#
        );
    }
}
