//! What the UniFFI derives on the core's types need (feature `uniffi`, enabled by the
//! Android bindings): the custom types their fields use. The types themselves derive
//! `uniffi::Record` or `uniffi::Enum` where they are declared (the diagnosis observations,
//! WebSocket events, transport request kinds and errors), so Kotlin's form of each is
//! generated from that one declaration (package `dev.linekit.ffi.core`, see
//! `rust-core/uniffi.toml`).

use crate::line::{CloseCause, Outcome};
use std::net::IpAddr;

// A wire enum (see `crate::wire`) crosses as its code: its Kotlin form is the enum the
// bindings generate from the same declaration, which maps the code back. An unknown code
// fails the call.
macro_rules! wire_code_type {
    ($($ty:ident),+) => {$(
        uniffi::custom_type!($ty, u8, {
            lower: |value| value.code(),
            try_lift: |code| $ty::from_code(i32::from(code)).ok_or_else(|| {
                uniffi::deps::anyhow::anyhow!(
                    "unknown {} code {code}",
                    <$ty as crate::wire::WireEnum>::KIND
                )
            }),
        });
    )+};
}

wire_code_type!(Outcome, CloseCause);

// An address crosses as its text form. Kotlin hands over `InetAddress.hostAddress`, which
// may carry an IPv6 zone (`fe80::1%wlan0`): the zone is dropped, the address kept.
uniffi::custom_type!(IpAddr, String, {
    remote,
    lower: |addr| addr.to_string(),
    try_lift: |text| Ok(parse_ip(&text)?),
});

/// `text` as an address, without an IPv6 zone suffix.
fn parse_ip(text: &str) -> Result<IpAddr, std::net::AddrParseError> {
    text.split('%').next().unwrap_or(text).parse()
}

#[cfg(test)]
mod tests {
    use super::*;
    use uniffi::{Lift, Lower};

    #[test]
    fn addresses_parse_with_or_without_a_zone() {
        assert_eq!(parse_ip("192.0.2.1").unwrap().to_string(), "192.0.2.1");
        assert_eq!(parse_ip("fe80::1%wlan0").unwrap().to_string(), "fe80::1");
        assert!(parse_ip("not an address").is_err());
    }

    #[test]
    fn wire_enums_cross_as_their_code_and_unknown_codes_fail() {
        for o in Outcome::ALL {
            let code = <Outcome as Lower<crate::UniFfiTag>>::lower(o);
            assert_eq!(code, o.code());
            assert_eq!(
                <Outcome as Lift<crate::UniFfiTag>>::try_lift(code).ok(),
                Some(o)
            );
        }
        let cause = CloseCause::Background;
        assert_eq!(
            <CloseCause as Lift<crate::UniFfiTag>>::try_lift(cause.code()).ok(),
            Some(cause)
        );
        let unknown = u8::try_from(CloseCause::ALL.len()).unwrap();
        let err = <CloseCause as Lift<crate::UniFfiTag>>::try_lift(unknown).unwrap_err();
        let why = format!("{err:#}");
        assert!(
            why.contains(&format!("unknown close_cause code {unknown}")),
            "{why}"
        );
    }
}
