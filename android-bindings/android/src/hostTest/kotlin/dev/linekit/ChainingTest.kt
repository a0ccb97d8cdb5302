package dev.linekit

import okhttp3.Call
import okhttp3.Dns
import okhttp3.EventListener
import okhttp3.OkHttpClient
import okhttp3.Request
import okhttp3.Response
import okhttp3.internal.platform.Platform
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertSame
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.net.InetAddress
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger
import javax.net.ssl.X509TrustManager

/** `lineKit()` chains what the builder already had instead of replacing it. */
class ChainingTest {
    private val a = LineServer("a")
    private val kit = LineKit.Builder().configJson(spotConfig(a)).transport(null).build()

    @AfterEach
    fun tearDown() {
        kit.close()
        a.close()
    }

    /** An app's (or APM SDK's) listener: records the events it sees. */
    private class RecordingListener(private val seen: ConcurrentLinkedQueue<String>) : EventListener() {
        override fun callStart(call: Call) {
            seen.add("callStart")
        }

        override fun dnsEnd(call: Call, domainName: String, inetAddressList: List<InetAddress>) {
            seen.add("dnsEnd:$domainName")
        }

        override fun responseHeadersEnd(call: Call, response: Response) {
            seen.add("responseHeadersEnd:${response.code}")
        }

        override fun callEnd(call: Call) {
            seen.add("callEnd")
        }
    }

    /** An app's resolver: answers loopback and counts its lookups. */
    private class AppDns : Dns {
        val lookups = ConcurrentLinkedQueue<String>()

        override fun lookup(hostname: String): List<InetAddress> {
            lookups.add(hostname)
            return listOf(InetAddress.getByName("127.0.0.1"))
        }
    }

    @Test
    fun `an app's event listener factory and Dns still receive their events and lookups`() {
        val seen = ConcurrentLinkedQueue<String>()
        val appDns = AppDns()
        val attempts = ConcurrentLinkedQueue<Attempt>()
        val client = OkHttpClient.Builder()
            .dns(appDns)
            .eventListenerFactory { RecordingListener(seen) }
            .lineKit(kit)
            .build()
        // A host the engine does not manage goes out as is, resolved by the app's Dns.
        val direct = LineServer("direct")
        try {
            client.newCall(Request.Builder().url("http://unmanaged.linekit.test:${direct.port}/x").build()).execute().use {
                assertEquals("direct", it.body.string())
            }
        } finally {
            direct.close()
        }
        assertEquals(listOf("unmanaged.linekit.test"), appDns.lookups.toList(), "the app's Dns is the delegate")
        assertEquals(
            listOf("callStart", "dnsEnd:unmanaged.linekit.test", "responseHeadersEnd:200", "callEnd"),
            seen.toList(),
        )
        assertTrue(client.dns is LineKitDns)
        assertSame(appDns, (client.dns as LineKitDns).delegate)

        // A managed request still gets Linekit's timings (its own listener runs alongside).
        seen.clear()
        val timed = OkHttpClient.Builder()
            .eventListenerFactory { RecordingListener(seen) }
            .lineKit(LineKit.Builder().configJson(spotConfig(a)).transport(null).onAttempt { attempts.add(it) }.build().also { extra ->
                opened.add(extra)
            })
            .build()
        timed.newCall(Request.Builder().url("http://api.linekit.test/y").build()).execute().use {
            assertEquals("a", it.body.string())
        }
        assertEquals("a", attempts.single().route.line)
        assertTrue(attempts.single().timings.ttfbNanos != null, "Linekit's listener measured the attempt")
        assertEquals(listOf("callStart", "responseHeadersEnd:200", "callEnd"), seen.toList())
    }

    private val opened = mutableListOf<AutoCloseable>()

    @AfterEach
    fun closeExtra() {
        opened.forEach { it.close() }
    }

    @Test
    fun `installing twice neither stacks Linekit nor loses the app's parts`() {
        val seen = ConcurrentLinkedQueue<String>()
        val appDns = AppDns()
        val builder = OkHttpClient.Builder().dns(appDns).eventListenerFactory { RecordingListener(seen) }
        val client = builder.lineKit(kit).lineKit(kit).build()
        assertEquals(1, client.interceptors.count { it is LineKitInterceptor })
        assertSame(appDns, (client.dns as LineKitDns).delegate)
        val factory = client.eventListenerFactory as LineKitEventListener.Factory
        assertTrue(factory.chained != null && factory.chained !is LineKitEventListener.Factory)
        client.newCall(Request.Builder().url("http://api.linekit.test/z").build()).execute().use {
            assertEquals("a", it.body.string())
        }
        assertEquals(1, seen.count { it == "callStart" }, "the app's listener sees each event once")
    }

    @Test
    fun `installing another LineKit replaces the interceptor with the new engine's`() {
        val other = LineKit.Builder().configJson(spotConfig(a)).transport(null).build()
        try {
            val client = OkHttpClient.Builder().lineKit(kit).lineKit(other).build()
            assertEquals(1, client.interceptors.count { it is LineKitInterceptor })
            assertSame(other, (client.interceptors[0] as LineKitInterceptor).lineKit)
        } finally {
            other.close()
        }
    }

    @Test
    fun `an explicit delegate Dns wins over the builder's`() {
        val appDns = AppDns()
        val explicit = AppDns()
        val client = OkHttpClient.Builder().dns(appDns).lineKit(kit, explicit).build()
        assertSame(explicit, (client.dns as LineKitDns).delegate)
        val plain = OkHttpClient.Builder().lineKit(kit).build()
        assertSame(Dns.SYSTEM, (plain.dns as LineKitDns).delegate)
    }

    /** OkHttp's platform, counting the trust managers it hands out: one per client built with default TLS. */
    private class CountingPlatform(private val real: Platform) : Platform() {
        val trustManagers = AtomicInteger()

        override fun platformTrustManager(): X509TrustManager {
            trustManagers.incrementAndGet()
            return real.platformTrustManager()
        }
    }

    @Test
    fun `installing reads the builder without building a client`() {
        assertTrue(dev.linekit.internal.BuilderSettings.readsDirectly, "OkHttp's builder getters are found")
        val real = Platform.get()
        val counting = CountingPlatform(real)
        Platform.resetForTests(counting)
        try {
            val appDns = AppDns()
            val builder = OkHttpClient.Builder().dns(appDns)
            LineKitOkHttp.install(builder, kit)
            builder.lineKit(kit)
            assertEquals(0, counting.trustManagers.get(), "no client was built to read the builder")
            val client = builder.build()
            assertEquals(1, counting.trustManagers.get(), "building the client is what builds one")
            assertSame(appDns, (client.dns as LineKitDns).delegate)
        } finally {
            Platform.resetForTests(real)
        }
    }
}
