package dev.linekit

/**
 * The private request headers that steer Linekit. Every header starting with [PREFIX] is
 * removed by [LineKitInterceptor] before the request leaves the device.
 */
object LineHeaders {
    /** Prefix shared by every private header (compared case-insensitively). */
    const val PREFIX: String = "X-Line-"

    /** Names the business line of a request explicitly, e.g. `X-Line-Biz: spot`. */
    const val BIZ: String = "X-Line-Biz"

    /** `X-Line-Keep-Original-Host: true` leaves the request's URL alone. */
    const val KEEP_ORIGINAL_HOST: String = "X-Line-Keep-Original-Host"

    /** `X-Line-Fixed-Host: https://host[:port]` pins the request to one origin. */
    const val FIXED_HOST: String = "X-Line-Fixed-Host"

    /** Whether [name] is a private Linekit header. */
    @JvmStatic
    fun isPrivate(name: String): Boolean = name.regionMatches(0, PREFIX, 0, PREFIX.length, ignoreCase = true)
}
