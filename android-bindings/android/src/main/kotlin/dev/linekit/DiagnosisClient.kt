package dev.linekit

import dev.linekit.ffi.HttpTransport
import okhttp3.OkHttpClient

/**
 * The HTTP client a diagnosis measures with: the engine's own [OkHttpTransport] client when
 * the engine has one (same independent dispatcher, pool and resolver as probes), otherwise
 * a separate client built on first use and closed with the engine. Never the business
 * client, never Linekit's interceptor or `Dns`.
 */
internal class DiagnosisClient(private val transport: HttpTransport?) : AutoCloseable {
    private val own = lazy {
        OkHttpClient.Builder()
            .followRedirects(false)
            .followSslRedirects(false)
            .retryOnConnectionFailure(false)
            .build()
    }

    /** The client to use. */
    fun get(): OkHttpClient = (transport as? OkHttpTransport)?.client ?: own.value

    /** Drops the pooled connections of the client this class built, if any. */
    override fun close() {
        if (own.isInitialized()) own.value.connectionPool.evictAll()
    }
}
