package dev.linekit.internal

import okhttp3.HttpUrl

/**
 * Where the core moved a request: the line's origin and a converged host's path prefix.
 * The path, query and fragment stay the request's own, so the interceptor applies these
 * parts to the request's already parsed [HttpUrl] instead of parsing a whole final URL.
 * One instance per target code of the engine's table ([RouteCodes]), shared by every
 * request routed there.
 *
 * @property origin the line's `scheme://host:port` as OkHttp carries it (`ws`/`wss` as
 *   `http`/`https`), parsed once, so a request's host is not canonicalised (IDNA-mapped)
 *   again.
 * @property pathPrefix inserted before the request's path (empty for none).
 */
internal class RouteTarget(
    val origin: HttpUrl,
    val pathPrefix: String,
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

    internal companion object {
        /** The scheme OkHttp uses for [scheme]: `ws` → `http`, `wss` → `https`. */
        private fun httpScheme(scheme: String): String = when (scheme) {
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
