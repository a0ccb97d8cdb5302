package dev.linekit

import okhttp3.Call
import okhttp3.OkHttpClient
import okhttp3.internal.connection.RealCall

/**
 * How often a request whose pooled connection went stale ([AttemptOutcome.STALE_CONNECTION])
 * is sent again, by the interceptor and by [TransportCalls].
 *
 * Each resend takes the next idle connection the pool offers or opens a new one, and a
 * connection that failed never goes back to the pool. After a network change every idle
 * connection is stale, so a request may meet every idle connection stale before it opens
 * a new one, which, if it fails, is not stale. So at its first stale connection a request
 * gets one resend per idle connection left in the pool and one for the new connection
 * after them: enough to reach a new connection, and bounded even if a server kept refusing
 * streams on one healthy connection.
 */
internal object StaleResend {
    /** The resends of a request whose first stale connection was on [client]'s pool (null: one). */
    fun budget(client: OkHttpClient?): Int = (client?.connectionPool?.idleConnectionCount() ?: 0) + 1

    /** [budget] for the client that runs [call]. */
    fun budget(call: Call): Int = budget((call as? RealCall)?.client)
}
