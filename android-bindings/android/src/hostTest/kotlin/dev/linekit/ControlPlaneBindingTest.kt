package dev.linekit

import dev.linekit.ffi.TransportCompletion
import dev.linekit.ffi.TransportRequest
import dev.linekit.internal.ControlPlane
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.concurrent.CopyOnWriteArrayList

/**
 * `build()` starts the engine over JNI and the first routes need nothing else: the
 * UniFFI control plane binds later, off the caller's thread, and then receives what the
 * engine emitted and sent meanwhile (trace events, the start-up probes).
 */
class ControlPlaneBindingTest : TwoLineServers() {
    private val original = ControlPlane.launch
    private val held = CopyOnWriteArrayList<() -> Unit>()

    @AfterEach
    fun restoreLaunch() {
        ControlPlane.launch = original
    }

    /** A transport that records the URLs it is asked for and performs them with OkHttp. */
    private class Recording(private val real: OkHttpTransport) : LineKitTransport, AutoCloseable by real {
        val urls = CopyOnWriteArrayList<String>()
        override fun start(request: TransportRequest, completion: TransportCompletion) {
            urls += request.url
            real.start(request, completion)
        }
        override fun cancel(id: Long) = real.cancel(id)
    }

    private fun config(sampleRate: Double) = spotConfig(a, b, sampleRate = sampleRate).replace(
        "\"thresholds\":{",
        "\"thresholds\":{\"startup_detect_delay_ms\":0,\"detect_jitter_ms\":0,",
    )

    @Test
    fun `requests route before the control plane binds, and it then gets the events and probes that waited`() {
        ControlPlane.launch = { held += it }
        val events = CopyOnWriteArrayList<String>()
        Recording(OkHttpTransport()).use { transport ->
            LineKit.Builder().configJson(config(1.0)).transport(transport).traceSink { events += it }.build().use { kit ->
                val client = OkHttpClient.Builder().lineKit(kit).build()
                repeat(3) {
                    client.newCall(Request.Builder().url("http://api.linekit.test/ticker").build()).execute().use { r ->
                        assertEquals(200, r.code)
                        assertEquals("a", r.header("X-Served-By"))
                    }
                }
                assertEquals(3, a.received.size)
                assertFalse(kit.controlPlaneBound, "routing bound the control plane")
                assertEquals(1, held.size, "build() launched one bind")
                // Neither callback can have been reached: both are handed over by the bind.
                assertTrue(events.isEmpty(), events.toString())
                assertTrue(transport.urls.isEmpty(), transport.urls.toString())

                held.single()()
                assertTrue(kit.controlPlaneBound)
                // The events of the three routed requests, then the start-up probes of both lines.
                assertTrue(events.count { "\"line\":\"a\"" in it } >= 3, events.toString())
                assertTrue(eventually { a.probes.isNotEmpty() && b.probes.isNotEmpty() }, transport.urls.toString())
            }
        }
    }

    @Test
    fun `a control-plane call that comes before the bind thread binds on its own thread, once`() {
        ControlPlane.launch = { held += it }
        LineKit.Builder().configJson(config(0.0)).transport(null).build().use { kit ->
            assertFalse(kit.controlPlaneBound)
            assertTrue(kit.stateJson().contains("\"version\":1"), kit.stateJson())
            assertTrue(kit.controlPlaneBound)
            // The held bind finds the engine bound and changes nothing.
            held.single()()
            assertTrue(kit.consentGranted)
        }
    }

    @Test
    fun `an engine closed before its bind never binds`() {
        ControlPlane.launch = { held += it }
        val kit = LineKit.Builder().configJson(config(0.0)).transport(null).build()
        kit.close()
        held.single()()
        assertFalse(kit.controlPlaneBound)
        assertTrue(kit.isClosed)
    }

    @Test
    fun `binds never run on two threads at once`() {
        val inside = java.util.concurrent.atomic.AtomicInteger()
        val most = java.util.concurrent.atomic.AtomicInteger()
        val go = java.util.concurrent.CountDownLatch(1)
        val threads = List(4) {
            Thread {
                go.await()
                repeat(200) {
                    ControlPlane.bind {
                        most.accumulateAndGet(inside.incrementAndGet(), ::maxOf)
                        Thread.yield()
                        inside.decrementAndGet()
                    }
                }
            }.apply { start() }
        }
        go.countDown()
        threads.forEach { it.join() }
        assertEquals(1, most.get())
    }

    @Test
    fun `every native error kind has its public subclass of the same name`() {
        val kinds = dev.linekit.ffi.LineKitException::class.java.declaredClasses
            .filter { dev.linekit.ffi.LineKitException::class.java.isAssignableFrom(it) }
            .map { it.simpleName }
        assertTrue(kinds.size >= 7, kinds.toString())
        for (kind in kinds) {
            assertEquals(kind, LineKitException.ofKind(kind, "m").javaClass.simpleName)
        }
    }
}
