package dev.linekit

/**
 * What happened to one attempt on a line (the DESIGN 3.2 vocabulary). [code] is the wire
 * code of the JNI path (the position in the core's list) and [wireName] the JSON name.
 */
enum class AttemptOutcome(
    /** The wire name (`ok`, `http_4xx`, ...). */
    val wireName: String,
) {
    /** The line answered with 1xx-3xx. */
    OK("ok"),

    /** The line answered with a 4xx. */
    HTTP_4XX("http_4xx"),

    /** The line answered with a 5xx. */
    HTTP_5XX("http_5xx"),

    /** Connecting timed out. */
    CONNECT_TIMEOUT("connect_timeout"),

    /** The connection was refused or reset while connecting. */
    CONNECT_REFUSED("connect_refused"),

    /** The line's host could not be resolved. */
    DNS_FAILURE("dns_failure"),

    /** The TLS handshake failed. */
    TLS_FAILURE("tls_failure"),

    /** The response did not arrive in time after connecting. */
    READ_TIMEOUT("read_timeout"),

    /** The device's own network failed. */
    LOCAL_NETWORK("local_network"),

    /** The call was cancelled (or its call timeout fired). */
    CANCELLED("cancelled"),
    ;

    /** The JNI wire code. */
    val code: Int get() = ordinal

    /**
     * Whether this outcome is a fault of the line itself, worth retrying elsewhere:
     * DNS/TLS/connect failures and 502/503/504 ([status] refines [HTTP_5XX]).
     */
    fun isLineFault(status: Int?): Boolean = when (this) {
        DNS_FAILURE, TLS_FAILURE, CONNECT_TIMEOUT, CONNECT_REFUSED -> true
        HTTP_5XX -> status == null || status in 502..504
        else -> false
    }

    /** Conversions. */
    companion object {
        /** The outcome of an HTTP response with [status]. */
        @JvmStatic
        fun fromStatus(status: Int): AttemptOutcome = when (status) {
            in 500..599 -> HTTP_5XX
            in 400..499 -> HTTP_4XX
            else -> OK
        }
    }
}
