package dev.linekit

import dev.linekit.internal.IdempotencyKeys
import dev.linekit.internal.RouteHeaders
import okhttp3.Headers

/**
 * The private request headers that steer Linekit. Every header starting with [PREFIX] is
 * removed by [LineKitInterceptor] before the request leaves the device. Their values are
 * read by the core (one rule: the first occurrence of each header wins), never here.
 */
object LineHeaders {
    /** Prefix shared by every private header (compared case-insensitively). */
    const val PREFIX: String = "X-Line-"

    /**
     * Names the business line of a request explicitly, e.g. `X-Line-Biz: spot`, among those
     * whose `match` claims the request's host; naming another is ignored (`BIZ_REFUSED`).
     */
    const val BIZ: String = "X-Line-Biz"

    /** `X-Line-Keep-Original-Host: true` leaves the request's URL alone. */
    const val KEEP_ORIGINAL_HOST: String = "X-Line-Keep-Original-Host"

    /**
     * `X-Line-Fixed-Host: https://host[:port]` pins the request to one origin: a line's, or
     * one the config lists in `fixed_hosts`. Any other origin is ignored (`FIXED_HOST_REFUSED`).
     */
    const val FIXED_HOST: String = "X-Line-Fixed-Host"

    /** Whether [name] is a private Linekit header. */
    @JvmStatic
    fun isPrivate(name: String): Boolean = name.regionMatches(0, PREFIX, 0, PREFIX.length, ignoreCase = true)

    /** Whether [name] is one of the core's idempotency-key headers (its replay rule reads them). */
    private fun isIdempotencyKey(name: String): Boolean {
        for (key in IdempotencyKeys.NAMES) if (key.equals(name, ignoreCase = true)) return true
        return false
    }

    /**
     * The headers of [headers] the core reads — the private ones and the idempotency keys —
     * in order, as a [RouteHeaders] list (the form the core reads), or null when there are
     * none (no allocation then).
     */
    internal fun routeHeadersOf(headers: Headers): String? {
        var out: StringBuilder? = null
        for (i in 0 until headers.size) {
            val name = headers.name(i)
            if (!isPrivate(name) && !isIdempotencyKey(name)) continue
            RouteHeaders.append(out ?: StringBuilder().also { out = it }, name, headers.value(i))
        }
        return out?.toString()
    }

    /** [pairs] in the same form as [routeHeadersOf]. */
    internal fun pack(pairs: List<Pair<String, String>>): String? {
        if (pairs.isEmpty()) return null
        val b = StringBuilder()
        for ((name, value) in pairs) RouteHeaders.append(b, name, value)
        return b.toString()
    }
}
