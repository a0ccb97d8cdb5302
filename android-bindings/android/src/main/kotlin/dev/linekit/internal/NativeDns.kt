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
     * client; 0 = the default network) as a [LookupAnswer]; `null` when the caller must use
     * the system resolver.
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

    /**
     * How a connect to [ip] for [host] ended: [result] is a [ConnectResult] (a failure's
     * [ConnectFailureKind] code, or a success with its connect time, which feeds the
     * address ranking when measured). Returns whether a failure quarantined the address.
     */
    @JvmStatic
    external fun connectResult(handle: Long, host: String, ip: ByteArray, result: Long): Boolean
}
