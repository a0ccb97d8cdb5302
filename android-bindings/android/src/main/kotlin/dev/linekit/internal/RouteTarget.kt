package dev.linekit.internal

import okhttp3.HttpUrl

/**
 * Where the core moved a request: the parts of the final URL that differ from the
 * request's (final scheme, host, explicit port, a converged host's path prefix). The path,
 * query and fragment stay the request's own, so the interceptor applies these parts to the
 * request's already parsed [HttpUrl] instead of parsing a whole final URL.
 *
 * @property origin the line's `scheme://host:port` as OkHttp carries it (`ws`/`wss` as
 *   `http`/`https`), parsed once per line by [Router] and shared by its requests, so a
 *   request's host is not canonicalised (IDNA-mapped) again.
 * @property scheme `http`, `https`, `ws` or `wss` (the request's family, the line's security).
 * @property port explicit port, or -1 for the scheme's default.
 * @property pathPrefix inserted before the request's path (empty for none).
 * @property restAt index in the request URL string where its path, query and fragment begin.
 */
internal class RouteTarget(
    val origin: HttpUrl,
    val scheme: String,
    val port: Int,
    val pathPrefix: String,
    val restAt: Int,
) {
    /**
     * [url] moved onto this target: the origin's scheme, host and port, the request's path
     * (after the prefix), query and fragment. Credentials never travel to another host.
     * Null when OkHttp rejects the result (the caller then keeps the original URL).
     */
    fun applyTo(url: HttpUrl): HttpUrl? = try {
        origin.newBuilder()
            .encodedPath(if (pathPrefix.isEmpty()) url.encodedPath else pathPrefix + url.encodedPath)
            .encodedQuery(url.encodedQuery)
            .encodedFragment(url.encodedFragment)
            .build()
    } catch (_: IllegalArgumentException) {
        null
    }

    /**
     * The final URL as a string for the request URL [requestUrl], written as the core's
     * `Target::url` writes it (IPv6 hosts in brackets, a `/` between a prefix and a rest
     * without one); the packing test of `fast.rs` and `LineKitApiTest` hold both sides to
     * the same answers. Only [dev.linekit.RouteDecision.url] asks for it, never a request.
     */
    fun urlOf(requestUrl: String): String {
        val host = origin.host
        val rest = requestUrl.substring(restAt.coerceIn(0, requestUrl.length))
        val b = StringBuilder(requestUrl.length + host.length + pathPrefix.length + 16)
        b.append(scheme).append("://")
        if (':' in host) b.append('[').append(host).append(']') else b.append(host)
        if (port >= 0) b.append(':').append(port)
        b.append(pathPrefix)
        if (pathPrefix.isNotEmpty() && !rest.startsWith('/')) b.append('/')
        return b.append(rest).toString()
    }

    internal companion object {
        /** The scheme OkHttp uses for [scheme]: `ws` → `http`, `wss` → `https`. */
        fun httpScheme(scheme: String): String = when (scheme) {
            "wss" -> "https"
            "ws" -> "http"
            else -> scheme
        }

        /** [host] and [port] (-1: default) under [scheme] as OkHttp's origin URL, or null when it rejects them. */
        fun originOf(scheme: String, host: String, port: Int): HttpUrl? = try {
            val httpScheme = httpScheme(scheme)
            HttpUrl.Builder().scheme(httpScheme).host(host)
                .port(if (port >= 0) port else HttpUrl.defaultPort(httpScheme)).build()
        } catch (_: IllegalArgumentException) {
            null
        }
    }
}
