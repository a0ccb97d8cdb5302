package dev.linekit.internal

/**
 * The JNI path into `liblinekit.so` for the calls made on every request. Only [Router]
 * and [RouteCodes] call these, always inside [NativeHandle.use] so the handle is live.
 * Arguments and answers are the generated records of `docs/jni-records.md`.
 *
 * The library is the file the UniFFI bindings use ([LibraryLoader]).
 */
internal object NativeFast {
    init {
        LibraryLoader.loadForJni()
    }

    /**
     * Routes one request; returns a [RouteAnswer]. [query] is a [RouteQuery]; [method] is
     * read only when the query's method code is [HttpMethods.OTHER]; [headers] is a
     * [RouteHeaders] list and [exclude] an [ExcludedLines] list, either null for none.
     * When [finalUrl] is not null and the request is rewritten, its first element receives
     * the final URL the core writes.
     */
    @JvmStatic
    external fun route(
        handle: Long,
        url: String,
        query: Int,
        method: String?,
        headers: String?,
        exclude: String?,
        finalUrl: Array<String?>?,
    ): Long

    /**
     * Reports one attempt; returns a [ReportAnswer]. [head] is a [ReportHead]; negative
     * times mean "not measured"; [version] is the response's `version_header` value (null
     * when absent).
     */
    @JvmStatic
    external fun report(
        handle: Long,
        head: Long,
        costMs: Long,
        dnsMs: Long,
        connectMs: Long,
        tlsMs: Long,
        ttfbMs: Long,
        version: String?,
    ): Int

    /**
     * The strings of answer codes: a [CodesHead], then [LineEntry] and [TargetEntry] groups.
     * Generation [generation]'s entries from [lineFrom] and [targetFrom] on while the engine
     * holds it, else every entry of the current generation (the head says which).
     */
    @JvmStatic
    external fun codes(handle: Long, generation: Int, lineFrom: Int, targetFrom: Int): Array<String?>

    /** Every record layout of the library: `record\tfield\tat\twidth` lines ([JniRecords]). */
    @JvmStatic
    external fun records(): String

    /** Every wire enum of the library, then the [HttpMethods]: `kind\tRustName\twire_name` lines in code order. */
    @JvmStatic
    external fun vocabulary(): String

    /** Tells the engine the interceptor has seen the business client: warms can go on its pool. */
    @JvmStatic
    external fun businessPool(handle: Long)

    /** Drops the engine reference behind [handle]; called exactly once. */
    @JvmStatic
    external fun release(handle: Long)
}
