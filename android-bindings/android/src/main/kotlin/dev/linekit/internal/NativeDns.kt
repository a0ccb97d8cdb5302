package dev.linekit.internal

/**
 * The JNI fast path for [dev.linekit.LineKitDns] and the connect results of
 * [dev.linekit.LineKitEventListener]. Only [JniResolver] calls these, always inside
 * [NativeHandle.use]. Loads `liblinekit.so` like [NativeFast].
 */
internal object NativeDns {
    init {
        LibraryLoader.loadForJni()
    }

    /**
     * The core's addresses for [host] on [network] (`Network.getNetworkHandle()` of a bound
     * client; 0 = the default network): a 4-byte big-endian count of milliseconds the
     * answer may be kept (0: ask again), then each address as a length byte (4 or 16)
     * followed by its bytes, in connect order; `null` when the caller must use the system
     * resolver.
     */
    @JvmStatic
    external fun lookup(handle: Long, host: String, network: Long): ByteArray?

    /**
     * A 4-byte direct buffer over the HTTPDNS cache's generation counter (bumped after
     * every change a lookup could see); read it in native byte order. It stays readable
     * after the engine is released.
     */
    @JvmStatic
    external fun generation(handle: Long): java.nio.ByteBuffer?

    /** A connect to [ip] for [host] failed with [error] (a [ConnectFailureKind] code); whether it was quarantined. */
    @JvmStatic
    external fun connectFailed(handle: Long, host: String, ip: ByteArray, error: Int): Boolean

    /**
     * A connect to [ip] for [host] succeeded in [connectMs] ms (feeds the address ranking;
     * -1 when not measured): clears its quarantine.
     */
    @JvmStatic
    external fun connectSucceeded(handle: Long, host: String, ip: ByteArray, connectMs: Long)
}
