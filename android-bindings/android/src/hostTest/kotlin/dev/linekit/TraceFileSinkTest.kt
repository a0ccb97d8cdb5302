package dev.linekit

import okhttp3.OkHttpClient
import okhttp3.Request
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.nio.file.Files

/** The file trace sink writes a trace the replay can read: every event, in `seq` order. */
class TraceFileSinkTest {
    private val a = LineServer("a")
    private val b = LineServer("b")
    private val dir = Files.createTempDirectory("linekit-trace").toFile()

    @AfterEach
    fun tearDown() {
        a.close()
        b.close()
        dir.deleteRecursively()
    }

    @Test
    fun `a recorded install writes every event in seq order`() {
        val file = dir.resolve("trace.jsonl")
        val sink = TraceFileSink(file)
        LineKit.Builder()
            .configJson(spotConfig(a, b, sampleRate = 1.0))
            .traceSink(sink)
            .transport(null)
            .build().use { kit ->
                val client = OkHttpClient.Builder().lineKit(kit).build()
                repeat(20) {
                    client.newCall(Request.Builder().url("http://api.linekit.test/x?token=abc").build()).execute().close()
                }
            }
        sink.close()
        val lines = file.readLines()
        assertEquals(0, sink.droppedEvents)
        assertTrue(lines.first().contains("\"kind\":\"start\""), lines.first())
        assertEquals(20, lines.count { it.contains("\"kind\":\"route\"") }, lines.toString())
        assertEquals(20, lines.count { it.contains("\"kind\":\"report\"") }, lines.toString())
        val seqs = lines.map { Regex("\"seq\":(\\d+)").find(it)!!.groupValues[1].toLong() }
        assertEquals((0L until lines.size).toList(), seqs)
        assertTrue(lines.none { it.contains("token") })
    }
}
