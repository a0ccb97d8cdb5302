//! `#[derive(Decode)]`: the lenient, path-reporting JSON decoder of a `linekit-core` config
//! type (and of the state file's records), derived from the type's own declaration so that
//! each field is declared once.
//!
//! The generated `impl crate::config::decode::Decode` reads a `serde_json::Value` the way
//! the type's serde `Deserialize` reads it: the same keys (`#[serde(rename = "...")]`), the
//! same defaults (`#[serde(default)]` on the container or on a field, `#[serde(default =
//! "path")]`), and a field is required where serde requires it (no default, not an
//! `Option`). Unlike serde it never stops at a problem: a wrong type or a missing field is
//! a finding at its path (`biz_lines.spot.http[1].url`) and a placeholder stands in for the
//! value, so one pass reports every problem of a document and the semantic rules that run
//! next see a complete typed value. The generated code names `crate::config::decode`: the
//! macro is for `linekit-core` alone.
//!
//! Shapes:
//! - a struct with named fields reads an object, one key per field (other keys ignored);
//! - a struct with one unnamed field reads as that field (serde's `transparent`);
//! - an enum of unit variants reads one of its variants' names (serde's `rename_all` or a
//!   variant's `rename` applied) and starts from its `Default`;
//! - an enum of struct variants with `#[decode(tag = "kind", kinds = "Kind")]` reads an
//!   object whose `kind` names the variant through the fieldless enum `Kind` (its
//!   `FromStr`, and its `WireEnum` names in the message), the variant's fields beside it.
//!   `Kind` must have a variant of the same name for each variant.
//!
//! What serde's attributes cannot say is written in `#[decode(...)]`:
//! - on a field: `required` (absent is a finding even though serde has a default),
//!   `non_empty = MESSAGE` (an empty list or map is a finding; any `&str` expression),
//!   `nullable` (`null` reads as absent), `key = "path"` (a map field: the path step of an
//!   entry, a `fn(&str) -> String`; by default `["name"]`), `default = "path"` (a field of
//!   a struct variant: its default, called like serde's `default = "path"`),
//!   `drop_malformed` (a list field: an item with any finding is left out of the list and
//!   its findings with it, so one damaged entry of a persisted list costs only itself; an
//!   absent list reads as empty);
//! - on a struct: `unsupported = "path"` (a `fn(&Value) -> Option<String>` saying why this
//!   build cannot use a value; such a value is a warning at its path and a placeholder).
//!
//! Serde attributes that change how a value is read and that this decoder does not follow
//! (`flatten`, `alias`, `with`, `deserialize_with`, `skip`, `skip_deserializing`, and on a
//! container `deny_unknown_fields`, `tag`, `untagged`, `content`, a struct's `rename_all`,
//! a container `default = "path"`) are compile errors, so the two readings of a type cannot
//! drift apart. Serialization-only attributes are ignored.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::quote;
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{
    parse_macro_input, Attribute, Data, DataEnum, DeriveInput, Error, Expr, Field, Fields, Ident,
    LitStr, Path, Result, Token, Type,
};

/// Derives `crate::config::decode::Decode`; see the crate docs.
#[proc_macro_derive(Decode, attributes(decode))]
pub fn derive_decode(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    expand(&input)
        .unwrap_or_else(Error::into_compile_error)
        .into()
}

fn expand(input: &DeriveInput) -> Result<Tokens> {
    let container = Container::parse(&input.attrs)?;
    let (placeholder, body) = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(named) => {
                container.only_for_structs(true)?;
                named_struct(&container, &named.named)?
            }
            Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
                container.only_for_structs(false)?;
                newtype(&unnamed.unnamed[0])?
            }
            other => {
                return Err(Error::new(
                    other.span(),
                    "Decode: a struct needs named fields or exactly one field",
                ))
            }
        },
        Data::Enum(e) => enumeration(&container, e)?,
        Data::Union(u) => {
            return Err(Error::new(
                u.union_token.span,
                "Decode: a union is not a config type",
            ))
        }
    };
    let name = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        #[automatically_derived]
        impl #impl_generics crate::config::decode::Decode for #name #ty_generics #where_clause {
            fn placeholder() -> Self {
                #placeholder
            }

            fn decode(
                d: &mut crate::config::decode::Decoder<'_>,
                v: &::serde_json::Value,
            ) -> ::core::option::Option<Self> {
                #body
            }
        }
    })
}

/// The container attributes that matter here.
#[derive(Default)]
struct Container {
    /// `#[serde(default)]`: every absent field takes the container's `Default`.
    serde_default: bool,
    /// `#[serde(rename_all = "...")]` (unit enums only).
    rename_all: Option<LitStr>,
    /// `#[decode(unsupported = "path")]`.
    unsupported: Option<Path>,
    /// `#[decode(tag = "...")]`.
    tag: Option<LitStr>,
    /// `#[decode(kinds = "Path")]`.
    kinds: Option<Path>,
}

impl Container {
    fn parse(attrs: &[Attribute]) -> Result<Container> {
        let mut c = Container::default();
        let refused = ["deny_unknown_fields", "tag", "untagged", "content"];
        each_item(attrs, &refused, |of, meta| {
            match of {
                Of::Serde if meta.path.is_ident("default") => {
                    if meta.input.peek(Token![=]) {
                        return Err(
                            meta.error("Decode does not follow a container `default = \"...\"`")
                        );
                    }
                    c.serde_default = true;
                }
                Of::Serde if meta.path.is_ident("rename_all") => {
                    c.rename_all = Some(meta.value()?.parse()?)
                }
                Of::Serde => return Ok(false),
                Of::Decode if meta.path.is_ident("unsupported") => {
                    c.unsupported = Some(path_value(meta)?)
                }
                Of::Decode if meta.path.is_ident("tag") => c.tag = Some(meta.value()?.parse()?),
                Of::Decode if meta.path.is_ident("kinds") => c.kinds = Some(path_value(meta)?),
                Of::Decode => {
                    return Err(
                        meta.error("unknown decode attribute (expected unsupported, tag or kinds)")
                    )
                }
            }
            Ok(true)
        })?;
        Ok(c)
    }

    /// Rejects the attributes of enums on a struct (and `unsupported` on a newtype).
    fn only_for_structs(&self, named: bool) -> Result<()> {
        if let Some(r) = &self.rename_all {
            return Err(Error::new(
                r.span(),
                "Decode does not follow `rename_all` on a struct",
            ));
        }
        if let Some(t) = &self.tag {
            return Err(Error::new(
                t.span(),
                "decode(tag) is for enums of struct variants",
            ));
        }
        match &self.unsupported {
            Some(p) if !named => Err(Error::new(
                p.span(),
                "decode(unsupported) is for structs with named fields",
            )),
            _ => Ok(()),
        }
    }
}

/// How an absent field is filled, from serde's view.
enum SerdeDefault {
    /// `#[serde(default)]`: the field type's `Default`.
    Trait,
    /// `#[serde(default = "path")]`: `path()`.
    Call(Path),
}

/// The field attributes that matter here.
#[derive(Default)]
struct FieldAttrs {
    rename: Option<LitStr>,
    serde_default: Option<SerdeDefault>,
    required: bool,
    non_empty: Option<Expr>,
    nullable: bool,
    key: Option<Path>,
    default: Option<Path>,
    drop_malformed: bool,
}

impl FieldAttrs {
    fn parse(attrs: &[Attribute]) -> Result<FieldAttrs> {
        let mut a = FieldAttrs::default();
        let refused = [
            "flatten",
            "alias",
            "with",
            "deserialize_with",
            "skip",
            "skip_deserializing",
        ];
        each_item(attrs, &refused, |of, meta| {
            match of {
                Of::Serde if meta.path.is_ident("rename") => a.rename = Some(meta.value()?.parse()?),
                Of::Serde if meta.path.is_ident("default") => {
                    a.serde_default = Some(if meta.input.peek(Token![=]) {
                        SerdeDefault::Call(path_value(meta)?)
                    } else {
                        SerdeDefault::Trait
                    })
                }
                Of::Serde => return Ok(false),
                Of::Decode if meta.path.is_ident("required") => a.required = true,
                Of::Decode if meta.path.is_ident("nullable") => a.nullable = true,
                Of::Decode if meta.path.is_ident("drop_malformed") => a.drop_malformed = true,
                Of::Decode if meta.path.is_ident("non_empty") => {
                    a.non_empty = Some(meta.value()?.parse()?)
                }
                Of::Decode if meta.path.is_ident("key") => a.key = Some(path_value(meta)?),
                Of::Decode if meta.path.is_ident("default") => a.default = Some(path_value(meta)?),
                Of::Decode => {
                    return Err(meta.error(
                        "unknown decode attribute (expected required, nullable, non_empty, key, default or drop_malformed)",
                    ))
                }
            }
            Ok(true)
        })?;
        Ok(a)
    }
}

/// Which attribute an item belongs to.
enum Of {
    Serde,
    Decode,
}

/// Calls `item` with every item of the `#[serde(...)]` and `#[decode(...)]` attributes in
/// `attrs`. A serde item named in `refused` is an error; one `item` does not handle
/// (returns false) is skipped.
fn each_item(
    attrs: &[Attribute],
    refused: &[&str],
    mut item: impl FnMut(Of, &ParseNestedMeta<'_>) -> Result<bool>,
) -> Result<()> {
    for attr in attrs {
        if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                if refused.iter().any(|k| meta.path.is_ident(k)) {
                    return Err(unfollowed(&meta));
                }
                if !item(Of::Serde, &meta)? {
                    skip(&meta)?;
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("decode") {
            attr.parse_nested_meta(|meta| item(Of::Decode, &meta).map(drop))?;
        }
    }
    Ok(())
}

/// The value of `name = "path"` as a path.
fn path_value(meta: &ParseNestedMeta<'_>) -> Result<Path> {
    meta.value()?.parse::<LitStr>()?.parse()
}

fn unfollowed(meta: &ParseNestedMeta<'_>) -> Error {
    let name = meta
        .path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default();
    meta.error(format!(
        "Decode does not follow serde `{name}`: the lenient decoder would read this type differently"
    ))
}

/// Consumes a serde attribute this derive has no use for (`key = "..."` or `key(...)`).
fn skip(meta: &ParseNestedMeta<'_>) -> Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<syn::Lit>()?;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| skip(&inner))?;
    }
    Ok(())
}

fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "Option"))
}

/// The statement that reads field `key` of the object `o` into `place`.
fn read_field(place: &Tokens, key: &str, required: bool, a: &FieldAttrs) -> Tokens {
    let read = match (&a.key, a.drop_malformed) {
        (Some(step), _) => quote! {
            d.field_with(o, #key, #required, &mut #place, |d, v| d.map(v, #step))
        },
        (None, true) => quote! {
            d.field_with(o, #key, #required, &mut #place, |d, v| d.well_formed_items(v))
        },
        (None, false) => quote! { d.field(o, #key, #required, &mut #place) },
    };
    let read = match &a.non_empty {
        Some(message) => quote! {
            if #read && #place.is_empty() {
                d.structural_at(#key, #message);
            }
        },
        None => quote! { #read; },
    };
    if a.nullable {
        quote! {
            if !o.get(#key).is_some_and(::serde_json::Value::is_null) {
                #read
            }
        }
    } else {
        read
    }
}

fn field_key(ident: &Ident, a: &FieldAttrs) -> String {
    a.rename
        .as_ref()
        .map(LitStr::value)
        .unwrap_or_else(|| ident.unraw().to_string())
}

fn named_struct(c: &Container, fields: &Punctuated<Field, Token![,]>) -> Result<(Tokens, Tokens)> {
    let mut inits = Vec::new();
    let mut calls = Vec::new();
    let mut reads = Vec::new();
    for f in fields {
        let a = FieldAttrs::parse(&f.attrs)?;
        if let Some(p) = &a.default {
            return Err(Error::new(
                p.span(),
                "decode(default) is for fields of struct variants; use serde's `default = \"...\"`",
            ));
        }
        let ident = f.ident.as_ref().expect("named field");
        let key = field_key(ident, &a);
        let defaulted =
            c.serde_default || a.serde_default.is_some() || is_option(&f.ty) || a.drop_malformed;
        let required = a.required || !defaulted;
        let ty = &f.ty;
        match &a.serde_default {
            Some(SerdeDefault::Call(p)) => calls.push(quote! { #ident: #p() }),
            // A required field starts as its type's placeholder: absent or malformed it is a
            // finding anyway, and its type need not have a `Default` (an address).
            _ if required && !c.serde_default => {
                inits.push(quote! { #ident: <#ty as crate::config::decode::Decode>::placeholder() })
            }
            _ if !c.serde_default => {
                inits.push(quote! { #ident: ::core::default::Default::default() })
            }
            _ => {}
        }
        reads.push(read_field(&quote! { s.#ident }, &key, required, &a));
    }
    let placeholder = if c.serde_default {
        quote! { Self { #(#calls,)* ..::core::default::Default::default() } }
    } else {
        quote! { Self { #(#calls,)* #(#inits,)* } }
    };
    let unsupported = c.unsupported.as_ref().map(|check| {
        quote! {
            if let ::core::option::Option::Some(why) = #check(v) {
                d.unsupported(why);
                return ::core::option::Option::Some(
                    <Self as crate::config::decode::Decode>::placeholder(),
                );
            }
        }
    });
    let body = quote! {
        #unsupported
        let o = d.object(v)?;
        let mut s = <Self as crate::config::decode::Decode>::placeholder();
        #(#reads)*
        ::core::option::Option::Some(s)
    };
    Ok((placeholder, body))
}

fn newtype(f: &Field) -> Result<(Tokens, Tokens)> {
    FieldAttrs::parse(&f.attrs)?;
    let ty = &f.ty;
    Ok((
        quote! { Self(<#ty as crate::config::decode::Decode>::placeholder()) },
        quote! { <#ty as crate::config::decode::Decode>::decode(d, v).map(Self) },
    ))
}

fn enumeration(c: &Container, e: &DataEnum) -> Result<(Tokens, Tokens)> {
    if let Some(p) = &c.unsupported {
        return Err(Error::new(p.span(), "decode(unsupported) is for structs"));
    }
    if e.variants.iter().all(|v| matches!(v.fields, Fields::Unit)) {
        return unit_enum(c, e);
    }
    match (&c.tag, &c.kinds) {
        (Some(tag), Some(kinds)) => tagged_enum(c, e, tag, kinds),
        _ => Err(Error::new(
            Span::call_site(),
            "Decode: an enum with fields needs #[decode(tag = \"...\", kinds = \"...\")]",
        )),
    }
}

/// A variant name under serde's `rename_all` rule.
fn renamed(ident: &Ident, rule: Option<&LitStr>) -> Result<String> {
    let name = ident.unraw().to_string();
    let words = || {
        let mut out = String::new();
        for (i, ch) in name.char_indices() {
            if ch.is_uppercase() && i > 0 {
                out.push('_');
            }
            out.extend(ch.to_lowercase());
        }
        out
    };
    Ok(match rule.map(LitStr::value).as_deref() {
        None => name.clone(),
        Some("lowercase") => name.to_lowercase(),
        Some("snake_case") => words(),
        Some("kebab-case") => words().replace('_', "-"),
        Some(_) => {
            return Err(Error::new(
                rule.span(),
                "Decode follows rename_all = lowercase, snake_case or kebab-case only",
            ))
        }
    })
}

fn unit_enum(c: &Container, e: &DataEnum) -> Result<(Tokens, Tokens)> {
    if let Some(tag) = &c.tag {
        return Err(Error::new(
            tag.span(),
            "decode(tag) is for enums of struct variants",
        ));
    }
    let mut names = Vec::new();
    let mut arms = Vec::new();
    for v in &e.variants {
        let a = FieldAttrs::parse(&v.attrs)?;
        let name = match &a.rename {
            Some(r) => r.value(),
            None => renamed(&v.ident, c.rename_all.as_ref())?,
        };
        let ident = &v.ident;
        arms.push(quote! { #name => ::core::option::Option::Some(Self::#ident), });
        names.push(name);
    }
    let message = format!("must be {}", listing(&names));
    let body = quote! {
        match d.text(v)? {
            #(#arms)*
            _ => {
                d.structural(#message);
                ::core::option::Option::None
            }
        }
    };
    Ok((quote! { ::core::default::Default::default() }, body))
}

/// `a`, `a or b`, `a, b or c`.
fn listing(names: &[String]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn tagged_enum(
    c: &Container,
    e: &DataEnum,
    tag: &LitStr,
    kinds: &Path,
) -> Result<(Tokens, Tokens)> {
    if let Some(r) = &c.rename_all {
        return Err(Error::new(
            r.span(),
            "a tagged enum names its variants through `kinds`",
        ));
    }
    let mut arms = Vec::new();
    let mut placeholder = None;
    for v in &e.variants {
        let Fields::Named(named) = &v.fields else {
            return Err(Error::new(
                v.span(),
                "Decode: every variant of a tagged enum has named fields",
            ));
        };
        let ident = &v.ident;
        let mut locals = Vec::new();
        let mut inits = Vec::new();
        let mut reads = Vec::new();
        for f in &named.named {
            let a = FieldAttrs::parse(&f.attrs)?;
            if a.serde_default.is_some() {
                return Err(Error::new(
                    f.span(),
                    "a variant's field takes decode(default = \"...\")",
                ));
            }
            let name = f.ident.as_ref().expect("named field");
            let key = field_key(name, &a);
            let init = match &a.default {
                Some(p) => quote! { #p() },
                None => quote! { ::core::default::Default::default() },
            };
            let required = a.required || (a.default.is_none() && !is_option(&f.ty));
            let ty = &f.ty;
            inits.push(quote! { #name: #init });
            locals.push(quote! { let mut #name: #ty = #init; });
            reads.push(read_field(&quote! { #name }, &key, required, &a));
        }
        let names = named.named.iter().map(|f| f.ident.as_ref());
        arms.push(quote! {
            #kinds::#ident => {
                #(#locals)*
                #(#reads)*
                Self::#ident { #(#names),* }
            }
        });
        placeholder.get_or_insert_with(|| quote! { Self::#ident { #(#inits),* } });
    }
    let placeholder = placeholder
        .ok_or_else(|| Error::new(Span::call_site(), "Decode: a tagged enum needs a variant"))?;
    let body = quote! {
        let o = d.object(v)?;
        let kind: #kinds = d.tag(o, #tag)?;
        ::core::option::Option::Some(match kind {
            #(#arms)*
        })
    };
    Ok((placeholder, body))
}

#[cfg(test)]
mod tests {
    use super::expand;
    use syn::parse_quote;

    fn error_of(input: syn::DeriveInput) -> String {
        match expand(&input) {
            Ok(tokens) => panic!("expected an error, got {tokens}"),
            Err(e) => e.to_string(),
        }
    }

    fn code_of(input: syn::DeriveInput) -> String {
        expand(&input).expect("expands").to_string()
    }

    #[test]
    fn serde_attributes_that_change_reading_are_refused() {
        for attr in [
            quote::quote!(#[serde(flatten)]),
            quote::quote!(#[serde(alias = "b")]),
            quote::quote!(#[serde(deserialize_with = "f")]),
            quote::quote!(#[serde(skip)]),
            quote::quote!(#[serde(skip_deserializing)]),
        ] {
            let input: syn::DeriveInput = parse_quote! {
                struct S {
                    #attr
                    a: u64,
                }
            };
            assert!(error_of(input).contains("does not follow serde"), "{attr}");
        }
        let input: syn::DeriveInput = parse_quote! {
            #[serde(deny_unknown_fields)]
            struct S { a: u64 }
        };
        assert!(error_of(input).contains("deny_unknown_fields"));
        let input: syn::DeriveInput = parse_quote! {
            #[serde(rename_all = "camelCase")]
            struct S { a_b: u64 }
        };
        assert!(error_of(input).contains("rename_all"));
    }

    #[test]
    fn keys_defaults_and_requirements_follow_serde() {
        let code = code_of(parse_quote! {
            struct Line {
                id: String,
                #[serde(rename = "match")]
                hosts: Vec<String>,
                #[serde(default = "default_weight", skip_serializing_if = "is_default")]
                weight: u32,
                priority: Option<u32>,
                #[serde(default)]
                prefix: String,
            }
        });
        // Required where serde requires: no default and not an Option.
        assert!(code.contains(r#"d . field (o , "id" , true"#), "{code}");
        assert!(code.contains(r#"d . field (o , "match" , true"#), "{code}");
        assert!(
            code.contains(r#"d . field (o , "weight" , false"#),
            "{code}"
        );
        assert!(
            code.contains(r#"d . field (o , "priority" , false"#),
            "{code}"
        );
        assert!(
            code.contains(r#"d . field (o , "prefix" , false"#),
            "{code}"
        );
        // The placeholder calls serde's default function.
        assert!(code.contains("weight : default_weight ()"), "{code}");
    }

    #[test]
    fn a_container_default_makes_every_field_optional_unless_decode_requires_it() {
        let code = code_of(parse_quote! {
            #[serde(default)]
            struct Stale {
                #[decode(required)]
                hosts: Vec<String>,
                max_stale_s: u64,
            }
        });
        assert!(code.contains(r#"d . field (o , "hosts" , true"#), "{code}");
        assert!(
            code.contains(r#"d . field (o , "max_stale_s" , false"#),
            "{code}"
        );
        assert!(
            code.contains(":: core :: default :: Default :: default ()"),
            "{code}"
        );
    }

    #[test]
    fn a_required_field_starts_as_its_placeholder_and_a_dropping_list_reads_well_formed_items() {
        let code = code_of(parse_quote! {
            struct Entry {
                ip: IpAddr,
                #[serde(default)]
                note: String,
                #[decode(drop_malformed)]
                buckets: Vec<Bucket>,
            }
        });
        assert!(
            code.contains(
                "ip : < IpAddr as crate :: config :: decode :: Decode > :: placeholder ()"
            ),
            "{code}"
        );
        assert!(
            code.contains("note : :: core :: default :: Default :: default ()"),
            "{code}"
        );
        assert!(code.contains("d . well_formed_items (v)"), "{code}");
        assert!(code.contains(r#"(o , "buckets" , false"#), "{code}");
    }

    #[test]
    fn unit_enums_read_their_renamed_names_and_list_them() {
        let code = code_of(parse_quote! {
            #[serde(rename_all = "lowercase")]
            enum Policy { Strict, Report, #[serde(rename = "off")] Never }
        });
        assert!(code.contains(r#""strict" =>"#), "{code}");
        assert!(code.contains(r#""off" =>"#), "{code}");
        assert!(
            code.contains(r#""must be strict, report or off""#),
            "{code}"
        );
    }

    #[test]
    fn a_tagged_enum_names_its_variants_through_its_kinds() {
        let code = code_of(parse_quote! {
            #[decode(tag = "kind", kinds = "Kind")]
            enum Auth {
                Sign { secret: String, #[decode(default = "validity")] validity_s: u64 },
                Token { token: String },
            }
        });
        assert!(code.contains(r#"d . tag (o , "kind")"#), "{code}");
        assert!(code.contains("Kind :: Sign =>"), "{code}");
        assert!(
            code.contains(r#"d . field (o , "validity_s" , false"#),
            "{code}"
        );
        assert!(code.contains(r#"d . field (o , "token" , true"#), "{code}");
        let untagged: syn::DeriveInput = parse_quote! {
            enum Auth { Token { token: String } }
        };
        assert!(error_of(untagged).contains("decode(tag"));
    }
}
