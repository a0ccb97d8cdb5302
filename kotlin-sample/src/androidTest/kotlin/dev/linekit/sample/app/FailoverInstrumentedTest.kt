package dev.linekit.sample.app

import androidx.test.core.app.ApplicationProvider
import androidx.test.ext.junit.runners.AndroidJUnit4
import dev.linekit.LineKit
import dev.linekit.android.LineKitAndroid
import dev.linekit.android.clientFor
import dev.linekit.lineKit
import mockwebserver3.MockResponse
import mockwebserver3.MockWebServer
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.Assert.assertEquals
import org.junit.Test
import org.junit.runner.RunWith

/**
 * On a device/emulator: two local servers as two lines of one business line; the first
 * answers 503, so requests fail over to the second. Also runs through a Network-bound
 * client (socket factory + Network DNS) and with the real network callback attached.
 */
@RunWith(AndroidJUnit4::class)
class FailoverInstrumentedTest {
    @Test
    fun requestsFailOverToTheHealthyLine() {
        MockWebServer().use { bad ->
            MockWebServer().use { good ->
                bad.start()
                good.start()
                repeat(10) { bad.enqueue(MockResponse.Builder().code(503).build()) }
                repeat(10) { good.enqueue(MockResponse.Builder().code(200).body("good").build()) }
                val config = """
                    {"version":1,"allow_cleartext":true,"thresholds":{"max_retries":1},
                     "biz_lines":{"spot":{"match":["api.linekit.test"],"http":[
                       {"id":"bad","url":"http://127.0.0.1:${bad.port}"},
                       {"id":"good","url":"http://127.0.0.1:${good.port}"}]}}}
                """.trimIndent()
                val context = ApplicationProvider.getApplicationContext<android.content.Context>()
                LineKit.Builder().configJson(config).build().use { kit ->
                    val monitor = LineKitAndroid.attach(context, kit)
                    try {
                        val client = OkHttpClient.Builder().lineKit(kit).build()
                        val request = Request.Builder().url("http://api.linekit.test/ping").build()
                        client.newCall(request).execute().use { assertEquals("good", it.body.string()) }
                        val network = monitor.defaultNetwork ?: return
                        kit.clientFor(network).newCall(request).execute().use { assertEquals(200, it.code) }
                    } finally {
                        monitor.detach()
                    }
                }
            }
        }
    }
}
