package dev.linekit.internal

/**
 * The JNI fast path into `liblinekit.so` for the calls made on every request. Only
 * [JniRouter] calls these, always inside [NativeHandle.use] so the handle is live.
 *
 * The library is loaded with [System.loadLibrary] (`java.library.path`), or from the
 * absolute path in the system property `linekit.library.path` when set.
 */
internal object NativeFast {
    init {
        val path = System.getProperty("linekit.library.path")
        if (path.isNullOrEmpty()) System.loadLibrary("linekit") else System.load(path)
    }

    /**
     * Routes one request; returns `"reason\nline\nbiz\nversionHeader\nversionMismatch\nurl"`
     * (empty fields for none; `versionMismatch` is `1` or empty).
     * [exclude] holds line ids joined by `\n`, or null.
     */
    @JvmStatic
    external fun route(
        handle: Long,
        url: String,
        method: String,
        biz: String?,
        keepOriginal: Boolean,
        fixedHost: String?,
        ws: Boolean,
        exclude: String?,
    ): String

    /**
     * Reports one attempt; negative numbers mean "none", [outcome] is the wire code,
     * [version] the response's `version_header` value (null when absent).
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
    )

    /** `thresholds.max_retries` of the config in force. */
    @JvmStatic
    external fun maxRetries(handle: Long): Int

    /** Drops the engine reference behind [handle]; called exactly once. */
    @JvmStatic
    external fun release(handle: Long)
}
