package dev.linekit

/**
 * Per-connection state shared between [LineKitWebSocket] and [LineKitInterceptor]: it
 * rides on the upgrade request as a tag (`Request.tag(WsSession::class)`, kept by the
 * `newBuilder()` OkHttp uses for the handshake). The interceptor records the route it
 * chose; a request carrying a session is reported by [LineKitWebSocket]'s listener, not
 * by the interceptor, so every handshake is reported exactly once.
 */
internal class WsSession {
    /** The route of the handshake, set by the interceptor (null: not routed on a line). */
    @Volatile
    var route: RouteTag? = null
}
