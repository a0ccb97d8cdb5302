package dev.linekit

import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Test

/**
 * Every route answer carries the business line's effective rollout mode, and under
 * `observe` the reason and line `on` would have routed with: on [RouteDecision] and on the
 * [RouteTag] of each response.
 */
class RolloutTagTest : TwoLineServers() {

    /** Business lines `watch` (observe), `old` (off) and `live` (on), each on lines a and b. */
    private fun config(): String {
        val http = """[{"id":"a","url":"${a.origin}"},{"id":"b","url":"${b.origin}"}]"""
        return """
            {"version":1,"allow_cleartext":true,
             "biz_lines":{
               "watch":{"match":["watch.linekit.test"],"rollout":{"mode":"observe"},"http":$http},
               "old":{"match":["old.linekit.test"],"rollout":{"mode":"off"},"http":$http},
               "live":{"match":["live.linekit.test"],"http":$http}}}
        """.trimIndent()
    }

    @Test
    fun `route answers and RouteTags carry the effective mode and observe's would-reason and would-line`() {
        LineKit.Builder().configJson(config()).transport(null).build().use { kit ->
            val watch = kit.route("http://watch.linekit.test:${a.port}/x")
            assertEquals(RolloutMode.OBSERVE, watch.mode)
            assertEquals(RouteReason.OBSERVE, watch.reason)
            assertNotNull(watch.wouldReason, "observe says what on would have done")
            assertEquals(null, watch.line, "observe puts the request on no line")
            assertEquals("a", watch.wouldLine)
            assertEquals(watch.url, "http://watch.linekit.test:${a.port}/x", "observe keeps the URL")

            val old = kit.route("http://old.linekit.test/x")
            assertEquals(RolloutMode.OFF, old.mode)
            assertEquals(RouteReason.ROLLOUT_OFF, old.reason)
            assertNull(old.wouldReason)

            val live = kit.route("http://live.linekit.test/x")
            assertEquals(RolloutMode.ON, live.mode)
            assertNull(live.wouldReason)
            assertNull(live.wouldLine)
            assertEquals("a", live.line)

            val client = OkHttpClient.Builder().lineKit(kit, CountingDns()).build()
            client.newCall(Request.Builder().url("http://watch.linekit.test:${a.port}/x").build()).execute().use {
                assertEquals("a", it.body.string())
                val tag = it.request.tag(RouteTag::class)!!
                assertEquals(RolloutMode.OBSERVE, tag.mode)
                assertEquals(watch.wouldReason, tag.wouldReason)
                assertEquals("a", tag.wouldLine)
            }
            client.newCall(Request.Builder().url("http://live.linekit.test/x").build()).execute().use {
                assertEquals("a", it.body.string())
                val tag = it.request.tag(RouteTag::class)!!
                assertEquals(RolloutMode.ON, tag.mode)
                assertNull(tag.wouldReason)
            }
        }
    }

    @Test
    fun `a retry finishes under the mode its call started with when the config changes in between`() {
        a.status = 503
        LineKit.Builder().configJson(config()).transport(null).build().use { kit ->
            // While the first attempt is on line a, a config turns `live` to observe.
            val observeLive = config().replace("\"version\":1", "\"version\":2")
                .replace("\"live\":{\"match\":[\"live.linekit.test\"],", "\"live\":{\"match\":[\"live.linekit.test\"],\"rollout\":{\"mode\":\"observe\"},")
            val client = OkHttpClient.Builder().lineKit(kit, CountingDns())
                .addNetworkInterceptor { chain ->
                    if (chain.request().url.port == a.port) {
                        assertEquals(true, kit.updateConfig(observeLive).applied)
                    }
                    chain.proceed(chain.request())
                }
                .build()
            client.newCall(Request.Builder().url("http://live.linekit.test/x").build()).execute().use {
                assertEquals("b", it.body.string(), "the retry failed over as the call started: under on")
                val tag = it.request.tag(RouteTag::class)!!
                assertEquals(RolloutMode.ON, tag.mode)
                assertEquals(1, tag.attempt)
            }
            // The next call is routed under the new mode.
            assertEquals(RolloutMode.OBSERVE, kit.route("http://live.linekit.test/x").mode)
        }
    }
}
