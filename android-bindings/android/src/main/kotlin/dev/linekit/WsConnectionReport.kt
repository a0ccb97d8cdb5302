package dev.linekit

/**
 * The quality record of ONE WebSocket connection made by [LineKitWebSocket], delivered
 * once when it ends (handshake failure, close or drop).
 *
 * @property biz business line the socket was routed for (null when not on a line).
 * @property line `ws` line id it used (null when not on a line).
 * @property handshakeMs call start → `onOpen`; null when it never opened.
 * @property firstMessageMs `onOpen` → first message; null when none arrived.
 * @property durationMs `onOpen` → close or drop; null when it never opened.
 * @property closeCode close code (1006 for a drop without a close frame); null when it
 *   never opened.
 * @property closeClass the class of [closeCode].
 * @property failure why it failed, or null for a clean close.
 * @property handshakeStatus the HTTP status answered instead of 101, if any.
 * @property cause what the app knew about the drop (network change, background, own close).
 */
data class WsConnectionReport(
    val biz: String?,
    val line: String?,
    val handshakeMs: Long?,
    val firstMessageMs: Long?,
    val durationMs: Long?,
    val closeCode: Int?,
    val closeClass: WsCloseClass?,
    val failure: WsFailureKind?,
    val handshakeStatus: Int?,
    val cause: WsDropCause,
)

/** Why a WebSocket failed. */
enum class WsFailureKind {
    /** The server answered the upgrade with a status other than 101 (see `handshakeStatus`). */
    HANDSHAKE_STATUS,

    /** The line's host did not resolve. */
    DNS,

    /** The TLS handshake failed. */
    TLS,

    /** Connecting was refused, reset or unreachable. */
    CONNECT,

    /** Connecting or the upgrade answer timed out. */
    HANDSHAKE_TIMEOUT,

    /** An open socket missed its pong (`OkHttpClient.pingInterval`). */
    PING_TIMEOUT,

    /** An open socket broke (reset, end of stream) without a close frame. */
    CONNECTION_LOST,

    /** The app cancelled it. */
    CANCELLED,
}

/** The class of a WebSocket close code (RFC 6455 section 7.4). */
enum class WsCloseClass {
    /** 1000: normal closure. */
    NORMAL,

    /** 1001: an endpoint is going away (server restart, page left). */
    GOING_AWAY,

    /** 1002, 1003, 1007-1010: protocol, data or policy errors. */
    PROTOCOL,

    /** 1011-1015: server error, restart, try again later, bad gateway, TLS. */
    SERVER_ERROR,

    /** 1005/1006: no status, or the connection dropped without a close frame. */
    ABNORMAL,

    /** 4000-4999: application-defined. */
    APPLICATION,

    /** Anything else. */
    OTHER,
    ;

    /** Classification. */
    companion object {
        /** The class of [code]. */
        @JvmStatic
        fun of(code: Int): WsCloseClass = when (code) {
            1000 -> NORMAL
            1001 -> GOING_AWAY
            1002, 1003, in 1007..1010 -> PROTOCOL
            in 1011..1015 -> SERVER_ERROR
            1005, 1006 -> ABNORMAL
            in 4000..4999 -> APPLICATION
            else -> OTHER
        }
    }
}
