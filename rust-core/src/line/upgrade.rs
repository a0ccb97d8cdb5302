//! Which pool a request belongs to when the caller does not say: a WebSocket handshake
//! (an `Upgrade: websocket` header, or a `ws://` / `wss://` URL) goes to the business
//! line's `ws` pool, everything else to `http`.
//!
//! The header rule is the one OkHttp's `newWebSocket` produces: the first `Upgrade`
//! header, compared case-insensitively after trimming, names the `websocket` token (a
//! comma-separated list such as `websocket, h2c` counts too).

use super::endpoint::SplitUrl;
use super::outcome::Protocol;

/// The header that asks for a protocol switch.
pub const UPGRADE: &str = "Upgrade";

/// The pool for a request with `url` and `headers`.
pub fn infer_protocol<N: AsRef<str>, V: AsRef<str>>(url: &str, headers: &[(N, V)]) -> Protocol {
    if SplitUrl::parse(url).is_some_and(|u| u.scheme.is_ws()) || asks_for_websocket(headers) {
        Protocol::Ws
    } else {
        Protocol::Http
    }
}

/// Whether the first `Upgrade` header names `websocket`.
pub fn asks_for_websocket<N: AsRef<str>, V: AsRef<str>>(headers: &[(N, V)]) -> bool {
    headers
        .iter()
        .find(|(n, _)| n.as_ref().eq_ignore_ascii_case(UPGRADE))
        .is_some_and(|(_, v)| {
            v.as_ref()
                .split(',')
                .any(|token| token.trim().eq_ignore_ascii_case("websocket"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn websocket_handshakes_use_the_ws_pool() {
        let none: [(&str, &str); 0] = [];
        assert_eq!(
            infer_protocol("https://api.example.com/s", &[("upgrade", " WebSocket ")]),
            Protocol::Ws
        );
        assert_eq!(
            infer_protocol("https://a.example.com/", &[("Upgrade", "websocket, h2c")]),
            Protocol::Ws
        );
        assert_eq!(
            infer_protocol("wss://api.example.com/s", &none),
            Protocol::Ws
        );
        assert_eq!(
            infer_protocol("ws://api.example.com/s", &none),
            Protocol::Ws
        );
        assert_eq!(
            infer_protocol("https://api.example.com/", &none),
            Protocol::Http
        );
        assert_eq!(
            infer_protocol("https://api.example.com/", &[("Upgrade", "h2c")]),
            Protocol::Http
        );
        assert_eq!(
            infer_protocol(
                "https://api.example.com/",
                &[("Upgrade", "h2c"), ("Upgrade", "websocket")]
            ),
            Protocol::Http,
            "the first Upgrade header decides"
        );
    }
}
