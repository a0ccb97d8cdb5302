package dev.linekit

/**
 * Tells whether the calling thread is the app's main thread, so that the blocking
 * [LineKit.diagnose] can refuse to run there. On Android (and under Robolectric) it asks
 * `android.os.Looper`, found by reflection so that the library also runs on a plain JVM,
 * where there is no main thread and the answer is always `false`. Tests may replace
 * [isMainThread].
 */
internal object DiagnosisMainThread {
    private val looper: Class<*>? = try {
        Class.forName("android.os.Looper")
    } catch (_: Throwable) {
        null
    }

    /** The check used by [LineKit.diagnose]. */
    @Volatile
    var isMainThread: () -> Boolean = ::looperSaysMain

    private fun looperSaysMain(): Boolean {
        val cls = looper ?: return false
        return try {
            val main = cls.getMethod("getMainLooper").invoke(null) ?: return false
            val thread = cls.getMethod("getThread").invoke(main)
            thread === Thread.currentThread()
        } catch (_: Throwable) {
            // The framework jar without a runtime behind it (a host JVM): no main thread.
            false
        }
    }
}
