package dev.linekit.internal

/**
 * The JNI path into `liblinekit.so` for the calls made on every request. Only [Router]
 * calls these, always inside [NativeHandle.use] so the handle is live.
 *
 * The library is the file the UniFFI bindings use ([LibraryLoader]).
 */
internal object NativeFast {
    init {
        LibraryLoader.loadForJni()
    }

    /**
     * Routes one request; returns
     * `"reason\nmaxRetries\nbufferBodyMaxBytes\nline\nbiz\nversionHeader\nversionMismatch\nscheme\nhost\nport\nprefix\nrestAt"`
     * (reason as its code, empty fields for none, `versionMismatch` `1` or empty; the last
     * five are the [RouteTarget] parts, all empty when the URL stays as it is; `maxRetries`
     * is 0 when the core's replay rule forbids sending the request again).
     * [routeHeaders] holds the request's `X-Line-*` and idempotency-key headers as
     * `name\nvalue` pairs joined by `\n`, [exclude] line ids joined by `\n`; either may be
     * null. [oneShotBody]: the request body cannot be written twice.
     */
    @JvmStatic
    external fun route(
        handle: Long,
        url: String,
        method: String,
        routeHeaders: String?,
        ws: Boolean,
        oneShotBody: Boolean,
        exclude: String?,
    ): String

    /**
     * Reports one attempt; negative numbers mean "none", [outcome] is an outcome code or -1
     * for "a response with [status]", [version] the response's `version_header` value (null
     * when absent). Returns the recorded outcome's code, plus 0x100 when it is a line fault.
     */
    @JvmStatic
    external fun report(
        handle: Long,
        biz: String?,
        line: String?,
        ws: Boolean,
        outcome: Int,
        status: Int,
        costMs: Long,
        dnsMs: Long,
        connectMs: Long,
        tlsMs: Long,
        ttfbMs: Long,
        version: String?,
    ): Int

    /** Every wire enum of the library: `kind\tRustName\twire_name` lines in code order. */
    @JvmStatic
    external fun vocabulary(): String

    /** Drops the engine reference behind [handle]; called exactly once. */
    @JvmStatic
    external fun release(handle: Long)
}
