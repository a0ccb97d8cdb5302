package dev.linekit.internal

import dev.linekit.LineKit
import dev.linekit.TwoLineServers
import dev.linekit.spotConfig
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertThrows
import org.junit.jupiter.api.Test

/**
 * The host library's test hook (cargo feature `jni-test-hooks`, never in a release build):
 * a JNI export declared like every fast-path export, whose body panics.
 */
internal object JniPanicProbe {
    init {
        // Loads liblinekit (NativeFast's initialiser), which holds this object's export.
        NativeFast.vocabulary()
    }

    @JvmStatic external fun panicking(): Int
}

/** A panic inside a fast-path (JNI) call comes back as an exception; the process goes on. */
class JniPanicTest : TwoLineServers() {

    @Test
    fun `a panic in a JNI call is an IllegalStateException and later calls still answer`() {
        LineKit.Builder().configJson(spotConfig(a, b)).build().use { kit ->
            assertEquals("a", kit.route("http://api.linekit.test/x").line)
            repeat(2) {
                val e = assertThrows(IllegalStateException::class.java) { JniPanicProbe.panicking() }
                assertEquals("linekit: native panic in a fast-path call", e.message)
            }
            assertEquals("a", kit.route("http://api.linekit.test/x").line)
        }
    }
}
