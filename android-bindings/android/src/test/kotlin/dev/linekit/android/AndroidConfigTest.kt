package dev.linekit.android

import android.app.Application
import android.content.Context
import android.content.ContextWrapper
import android.content.res.AssetManager
import dev.linekit.LineKit
import org.junit.Assert.assertEquals
import org.junit.Assert.assertFalse
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.RuntimeEnvironment
import org.robolectric.annotation.Config
import java.io.File
import java.io.IOException

@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34])
class AndroidConfigTest {
    private val app: Application = RuntimeEnvironment.getApplication()

    /**
     * A context whose `getAssets()` serves src/test/assets, packaged by the build into
     * an asset-only zip (`linekit.test.assets`) and added with the framework's own
     * `AssetManager.addAssetPath` (hidden API, hence reflection; tests only).
     */
    private val context: Context by lazy {
        val zip = System.getProperty("linekit.test.assets") ?: error("set -Dlinekit.test.assets")
        val assets = AssetManager::class.java.getDeclaredConstructor().newInstance()
        val cookie = AssetManager::class.java.getMethod("addAssetPath", String::class.java).invoke(assets, zip) as Int
        check(cookie != 0) { "could not add $zip" }
        object : ContextWrapper(app) {
            override fun getAssets(): AssetManager = assets
        }
    }

    @Test
    fun `the sealed config asset is opened with the app's key`() {
        // src/test/assets/linekit/config.sealed: `linekit config seal` of version 7.
        LineKit.Builder().sealedConfigAsset(context, SEALED_ASSET, SEALED_KEY).build().use { kit ->
            val state = kit.stateJson()
            assertTrue(state, state.contains("\"source\":\"sealed\""))
            assertTrue(state, state.contains("\"version\":7"))
        }
    }

    @Test
    fun `a wrong key falls back down the chain instead of failing the app`() {
        val wrong = ByteArray(32) { 9 }
        LineKit.Builder().sealedConfigAsset(context, SEALED_ASSET, wrong).build().use { kit ->
            assertTrue(kit.stateJson().contains("\"source\":\"hard_coded\""))
        }
    }

    @Test
    fun `a missing asset is an IOException, not a silent fallback`() {
        try {
            LineKit.Builder().sealedConfigAsset(context, "linekit/missing.sealed", SEALED_KEY)
            fail("expected an IOException")
        } catch (e: IOException) {
            // expected
        }
    }

    @Test
    fun `default storage is filesDir slash linekit and is created`() {
        val expected = File(app.filesDir, "linekit")
        expected.deleteRecursively()
        assertFalse(expected.exists())
        val dir = lineKitStorageDir(app)
        assertEquals(expected.absolutePath, dir.absolutePath)
        assertTrue(dir.isDirectory)
        // Idempotent, and the engine accepts it.
        assertEquals(dir, lineKitStorageDir(app))
        LineKit.Builder().configJson(testConfig(version = 3)).defaultStorage(app).build().use { kit ->
            assertTrue(kit.stateJson().contains("\"version\":3"))
        }
        assertTrue(expected.isDirectory)
    }

    companion object {
        const val SEALED_ASSET = "linekit/config.sealed"

        /** The key the asset was sealed with (hex 00 01 02 … 1f). */
        val SEALED_KEY = ByteArray(32) { it.toByte() }
    }
}
