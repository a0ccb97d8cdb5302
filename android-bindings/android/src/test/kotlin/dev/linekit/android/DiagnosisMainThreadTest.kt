package dev.linekit.android

import android.os.Looper
import dev.linekit.DiagnosisReport
import org.junit.After
import org.junit.Assert.assertEquals
import org.junit.Assert.assertTrue
import org.junit.Assert.fail
import org.junit.Test
import org.junit.runner.RunWith
import org.robolectric.RobolectricTestRunner
import org.robolectric.annotation.Config
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit

/** The blocking `diagnose()` refuses Android's main thread; other threads and the callback variant work. */
@RunWith(RobolectricTestRunner::class)
@Config(sdk = [34])
class DiagnosisMainThreadTest {
    private val kit = testLineKit()

    @After
    fun tearDown() = kit.close()

    @Test
    fun `blocking diagnose throws on the main thread`() {
        assertEquals(Looper.getMainLooper().thread, Thread.currentThread())
        try {
            kit.diagnose()
            fail("diagnose() must not block the main thread")
        } catch (e: IllegalStateException) {
            assertTrue(e.message, e.message!!.contains("main thread"))
        }
    }

    @Test
    fun `a worker thread and the callback variant get a report`() {
        val fromWorker = CompletableFuture<DiagnosisReport>()
        Thread { fromWorker.complete(kit.diagnose("spot", 3_000)) }.start()
        assertTrue(fromWorker.get(10, TimeUnit.SECONDS).json.contains("\"spot/a\""))
        val fromCallback = CompletableFuture<DiagnosisReport>()
        kit.diagnose("spot", 3_000) { fromCallback.complete(it) }
        assertTrue(fromCallback.get(10, TimeUnit.SECONDS).json.contains("\"tcp_error\":\"connect_refused\""))
    }
}
