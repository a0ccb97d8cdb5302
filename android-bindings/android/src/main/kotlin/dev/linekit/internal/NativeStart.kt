package dev.linekit.internal

/**
 * The JNI path that starts and stops an engine, so that `LineKit.Builder.build()` and the
 * first route never wait for JNA: [start] answers the handle [NativeFast] and [NativeDns]
 * take, and the control plane binds later ([ControlPlane]). Arguments and answers are the
 * generated records of `docs/jni-records.md`.
 */
internal object NativeStart {
    init {
        LibraryLoader.loadForJni()
    }

    /**
     * Starts an engine from its config sources; returns its handle, or 0 with
     * `failure[0]` set to a [StartFailure] head and its [ConfigProblem] groups. [flags]
     * is a [StartFlags]: the sink and the transport it announces are handed over by the
     * control plane's `bindEngine`, and what the engine emits or sends meanwhile waits for
     * them.
     */
    @JvmStatic
    external fun start(
        configJson: String?,
        sealedConfig: String?,
        sealedKey: ByteArray?,
        storageDir: String?,
        flags: Int,
        failure: Array<Array<String?>?>,
    ): Long

    /** Stops the engine's background work (idempotent); the handle stays valid until `release`. */
    @JvmStatic
    external fun shutdown(handle: Long)
}
