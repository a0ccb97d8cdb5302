package dev.linekit

import org.junit.jupiter.api.Test
import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.Executors
import java.util.concurrent.ThreadLocalRandom
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * 8 threads x 500 requests with random 503s on both lines: each call's attempts carry
 * timings that belong to that call (the server delays each response by the call's own
 * `delay`), and the totals seen by the engine, the client and the servers agree.
 */
class ConcurrencyTest {
    private val a = LineServer("a").apply { failRate = 0.1 }
    private val b = LineServer("b").apply { failRate = 0.1 }

    @AfterEach
    fun tearDown() {
        a.close()
        b.close()
    }

    @Test
    fun `per-call timings belong to their call and totals match`() {
        val attempts = ConcurrentLinkedQueue<Pair<String, Attempt>>()
        val kit = LineKit.Builder()
            .configJson(spotConfig(a, b, maxRetries = 1))
            
            .onAttempt { attempts.add(Thread.currentThread().name to it) }
            .build()
        val client = OkHttpClient.Builder()
            .lineKit(kit)
            .dispatcher(okhttp3.Dispatcher().apply { maxRequestsPerHost = 16 })
            .build()
        val threads = 8
        val perThread = 500
        val callThread = ConcurrentHashMap<String, String>()
        val callDelay = ConcurrentHashMap<String, Long>()
        val clientStatus = ConcurrentHashMap<Int, AtomicInteger>()
        val pool = Executors.newFixedThreadPool(threads)
        try {
            val futures = (0 until threads).map { t ->
                pool.submit {
                    repeat(perThread) { i ->
                        val id = "$t-$i"
                        val delay = ThreadLocalRandom.current().nextLong(0, 6)
                        callThread[id] = Thread.currentThread().name
                        callDelay[id] = delay
                        val request = Request.Builder().url("http://api.linekit.test/load?id=$id&delay=$delay").build()
                        client.newCall(request).execute().use {
                            it.body.string()
                            clientStatus.computeIfAbsent(it.code) { AtomicInteger() }.incrementAndGet()
                        }
                    }
                }
            }
            futures.forEach { it.get(120, TimeUnit.SECONDS) }
        } finally {
            pool.shutdownNow()
            kit.close()
        }

        val total = threads * perThread
        assertEquals(total, clientStatus.values.sumOf { it.get() })
        val list = attempts.toList()
        // Every attempt the servers saw was reported exactly once, with the right status.
        assertEquals(a.received.size + b.received.size, list.size)
        assertEquals(a.servedCount(200) + b.servedCount(200), list.count { it.second.status == 200 })
        assertEquals(a.servedCount(503) + b.servedCount(503), list.count { it.second.status == 503 })
        assertEquals(clientStatus[200]?.get() ?: 0, list.count { it.second.status == 200 })
        // A 503 reaches the client only when the retry failed too.
        assertEquals(clientStatus[503]?.get() ?: 0, list.count { it.second.status == 503 && it.second.route.attempt == 1 })

        val byCall = list.groupBy { it.second.request.url.queryParameter("id")!! }
        assertEquals(total, byCall.size)
        for ((id, callAttempts) in byCall) {
            val delayNanos = TimeUnit.MILLISECONDS.toNanos(callDelay.getValue(id))
            callAttempts.forEachIndexed { index, (thread, attempt) ->
                assertEquals(callThread[id], thread, "attempt of $id observed on its own thread")
                assertEquals(index, attempt.route.attempt)
                val t = attempt.timings
                val ttfb = t.ttfbNanos ?: error("no ttfb for $id")
                assertTrue(ttfb >= delayNanos - 200_000, "ttfb $ttfb of $id shorter than its server delay $delayNanos")
                assertTrue(ttfb <= t.totalNanos, "ttfb within the attempt for $id")
                assertTrue(t.totalNanos < delayNanos + TimeUnit.SECONDS.toNanos(5), "total of $id")
                t.dnsNanos?.let { assertTrue(it <= t.totalNanos) }
                t.connectNanos?.let { assertTrue(it <= t.totalNanos) }
            }
        }
    }
}
