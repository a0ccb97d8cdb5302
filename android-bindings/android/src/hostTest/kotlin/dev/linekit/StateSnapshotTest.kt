package dev.linekit

import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.lang.reflect.Modifier
import java.lang.reflect.ParameterizedType
import java.lang.reflect.Type

/**
 * [LineKit.state]: the typed snapshot mirrors the records generated from the core's one
 * declaration of the engine state, field for field, reports what happened, and agrees with
 * [LineKit.stateJson] (the same declaration's JSON form).
 */
class StateSnapshotTest : TwoLineServers() {
    /** Each public class and the record generated from the core's declaration. */
    private val mirrors: List<Pair<Class<*>, Class<*>>> = listOf(
        LineKitState::class.java to dev.linekit.ffi.core.EngineState::class.java,
        NetworkState::class.java to dev.linekit.ffi.core.NetworkView::class.java,
        PoolState::class.java to dev.linekit.ffi.core.PoolSnapshot::class.java,
        LineState::class.java to dev.linekit.ffi.core.LineSnapshot::class.java,
        HttpDnsState::class.java to dev.linekit.ffi.core.HttpDnsState::class.java,
        HttpDnsHost::class.java to dev.linekit.ffi.core.DnsRecordState::class.java,
        HttpDnsProvider::class.java to dev.linekit.ffi.core.ProviderBackoff::class.java,
        ConfigState::class.java to dev.linekit.ffi.core.ConfigState::class.java,
        SkippedSource::class.java to dev.linekit.ffi.core.SkippedSource::class.java,
        ConfigFetch::class.java to dev.linekit.ffi.core.ConfigFetch::class.java,
    )

    private fun fields(cls: Class<*>): Set<String> =
        cls.declaredFields.filter { !Modifier.isStatic(it.modifiers) && !it.isSynthetic }.map { it.name }.toSet()

    private fun classesIn(type: Type): List<Class<*>> = when (type) {
        is Class<*> -> listOf(type)
        is ParameterizedType -> classesIn(type.rawType) + type.actualTypeArguments.flatMap(::classesIn)
        else -> emptyList()
    }

    @Test
    fun `every public state class has exactly the fields of the core's record`() {
        for ((public, record) in mirrors) {
            assertTrue(fields(record).isNotEmpty(), record.name)
            assertEquals(fields(record), fields(public), "${public.simpleName} mirrors ${record.name}")
        }
    }

    @Test
    fun `every record the core's state reaches has its public class`() {
        val reached = linkedSetOf<Class<*>>()
        val queue = ArrayDeque(listOf<Class<*>>(dev.linekit.ffi.core.EngineState::class.java))
        while (queue.isNotEmpty()) {
            val cls = queue.removeFirst()
            if (!reached.add(cls)) continue
            cls.declaredFields.filter { !Modifier.isStatic(it.modifiers) }
                .flatMap { classesIn(it.genericType) }
                .filter { it.`package`?.name == "dev.linekit.ffi.core" }
                .forEach(queue::add)
        }
        assertEquals(mirrors.map { it.second }.toSet(), reached)
    }

    @Test
    fun `the snapshot reports the lines, the network and the config source`() {
        a.status = 503
        LineKit.Builder().configJson(spotConfig(a, b)).transport(null).build().use { kit ->
            kit.onNetworkChanged(7, validated = true, vpn = true, privateDns = PrivateDnsMode.STRICT, transport = "wifi")
            val client = OkHttpClient.Builder().lineKit(kit).build()
            client.newCall(Request.Builder().url("http://api.linekit.test/x").build()).execute().use {
                assertEquals(200, it.code)
            }
            val state = kit.state()
            assertEquals(1L, state.version)
            assertEquals(false, state.downgrade)
            assertEquals(ConfigSource.REMOTE, state.source)
            assertEquals(NetworkState(7, true, true, PrivateDnsMode.STRICT, false, "wifi", HttpDnsBypass.VPN), state.network)
            val lines = state.lines("spot")
            assertEquals(lines, state.pools.getValue("spot/http").lines)
            assertEquals(listOf("b", "a"), lines.map { it.id }, "the failing line is ranked last")
            val failed = lines.single { it.id == "a" }
            assertEquals(1L, failed.failures)
            assertEquals(AttemptOutcome.HTTP_5XX, failed.lastError)
            assertEquals(BreakerState.CLOSED, failed.breaker)
            assertEquals("127.0.0.1:${a.port}", failed.host)
            val served = lines.single { it.id == "b" }
            assertEquals(1L, served.successes)
            assertNull(served.lastError)
            assertTrue(served.avgLatencyMs != null && served.used)
            assertEquals(emptyList<HttpDnsHost>(), state.httpdns.records)
            assertEquals(ConfigSource.REMOTE, state.config.source)
            assertEquals("ok", state.config.status)
            assertEquals(emptyList<SkippedSource>(), state.config.skipped)
            // The JSON is the same snapshot.
            val json = kit.stateJson()
            for (needle in listOf("\"handle\":7", "\"httpdns_bypass\":\"vpn\"", "\"last_error\":\"http_5xx\"", "\"source\":\"remote\"")) {
                assertTrue(json.contains(needle), "$needle in $json")
            }
        }
    }

    @Test
    fun `a skipped source is named in the snapshot`() {
        LineKit.Builder().configJson("{broken").fallbackOnInvalidConfig().transport(null).build().use { kit ->
            val state = kit.state()
            assertEquals(ConfigSource.HARD_CODED, state.config.source)
            assertEquals(listOf(ConfigSource.REMOTE), state.config.skipped.map { it.source })
            assertTrue(state.config.skipped.single().reason.isNotEmpty())
        }
    }

    @Test
    fun `every key of the JSON is a field of the snapshot`() {
        LineKit.Builder().configJson(spotConfig(a, b)).transport(null).build().use { kit ->
            val keys = Regex("\"([a-z_]+)\":").findAll(kit.stateJson()).map { it.groupValues[1] }.toSet()
            val snake = mirrors.flatMap { fields(it.first) }.map { name -> name.replace(Regex("[A-Z]")) { "_" + it.value.lowercase() } }.toSet()
            assertTrue(keys.size > 20, keys.toString())
            // The rollout map is keyed by business line: those keys are data, not fields.
            val businessLines = kit.state().rollout.keys
            assertEquals(setOf("spot"), businessLines)
            assertEquals(emptySet<String>(), keys - snake - businessLines)
        }
    }
}
