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
 * found on the classpath under JNA's resource prefix. Runs in its own Surefire
 * execution, without `jna.library.path` and `java.library.path`.
 */
class BundledLibraryTest : TwoLineServers() {

    @Test
    fun `both bridges load the classpath copy and share it`() {
        val prefix = System.getProperty("linekit.test.bundled.prefix")
        assumeTrue(prefix != null, "runs in the bundled-library execution only")
        assertNull(System.getProperty("jna.library.path"), "this execution must not set jna.library.path")
        LineKit.Builder().configJson(spotConfig(a, b)).build().use { kit ->
            // The JNI side started the engine and routes (api.linekit.test resolves nowhere:
            // only the rewrite to line a reaches a server) with its handle.
            val client = OkHttpClient.Builder().lineKit(kit).build()
            client.newCall(Request.Builder().url("http://api.linekit.test/ticker").build()).execute().use { response ->
                assertEquals(200, response.code)
                assertEquals("a", response.header("X-Served-By"))
            }
            assertEquals(1, a.received.size)
            // The UniFFI side reads the same engine: the request the JNI side reported.
            assertTrue(kit.stateJson().contains("\"id\":\"a\""), kit.stateJson())
        }
        // Both generated components were pointed at the file the JNI side loaded, and JNA
        // opened that very file.
        val override = System.getProperty("uniffi.component.linekit.libraryOverride")
        assertTrue(override != null && override.endsWith("$prefix/liblinekit.so"), "JNI loaded $override, not the $prefix resource")
        assertEquals(override, System.getProperty("uniffi.component.linekit_core.libraryOverride"))
        val loaded = NativeLibrary.getInstance(
            override,
            mapOf(Library.OPTION_CLASSLOADER to LineKit::class.java.classLoader),
        ).file
        assertEquals(java.io.File(override).canonicalPath, loaded.canonicalPath)
    }
}
