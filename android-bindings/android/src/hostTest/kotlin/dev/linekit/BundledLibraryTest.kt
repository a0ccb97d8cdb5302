package dev.linekit

import com.sun.jna.Library
import com.sun.jna.NativeLibrary
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test

/**
 * The library as a `dev.linekit:linekit-jvm` app gets it: no library path, `liblinekit.so`
 * found by JNA on the classpath under the host's resource prefix. Runs in its own Surefire
 * execution, without `jna.library.path` and `java.library.path`.
 */
class BundledLibraryTest : TwoLineServers() {

    @Test
    fun `both bridges load the classpath copy and share it`() {
        val prefix = System.getProperty("linekit.test.bundled.prefix")
        assumeTrue(prefix != null, "runs in the bundled-library execution only")
        assertNull(System.getProperty("jna.library.path"), "this execution must not set jna.library.path")
        LineKit.Builder().configJson(spotConfig(a, b)).build().use { kit ->
            // The UniFFI side made the engine; the JNI side routes (api.linekit.test resolves
            // nowhere: only the rewrite to line a reaches a server) with its handle.
            val client = OkHttpClient.Builder().lineKit(kit).build()
            client.newCall(Request.Builder().url("http://api.linekit.test/ticker").build()).execute().use { response ->
                assertEquals(200, response.code)
                assertEquals("a", response.header("X-Served-By"))
            }
            assertEquals(1, a.received.size)
        }
        val loaded = NativeLibrary.getInstance(
            "linekit",
            mapOf(Library.OPTION_CLASSLOADER to LineKit::class.java.classLoader),
        ).file
        assertTrue(loaded.path.endsWith("$prefix/liblinekit.so"), "JNA loaded $loaded, not the $prefix resource")
    }
}
