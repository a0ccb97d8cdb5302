package dev.linekit

import java.io.BufferedWriter
import java.io.File
import java.util.concurrent.ArrayBlockingQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/**
 * A trace sink that appends each event to [file] as one JSON line, in the order the engine
 * emits them: a valid trace for `linekit replay --from-trace` (see `docs/trace-format.md`).
 *
 * ```
 * val traces = TraceFileSink(File(context.filesDir, "linekit-trace.jsonl"))
 * val lineKit = LineKit.Builder().configJson(json).traceSink(traces).build()
 * ...
 * lineKit.close(); traces.close()
 * ```
 *
 * Receiving an event only queues it (the engine calls sinks on the request path); one
 * daemon thread writes. When the queue of [capacity] events is full an event is dropped
 * and counted in [droppedEvents]: the trace then has a gap in `seq`, which the replay
 * refuses rather than replaying an incomplete trace. Which windows are recorded is decided
 * by the config's `trace.sample_rate` and `trace.window_ms`.
 */
class TraceFileSink @JvmOverloads constructor(
    private val file: File,
    capacity: Int = 65_536,
) : TraceSink, AutoCloseable {
    private val queue = ArrayBlockingQueue<String>(capacity)
    private val dropped = AtomicLong()

    @Volatile
    private var closed = false
    private val writer = Thread(::drain, "linekit-trace-file").apply {
        isDaemon = true
        start()
    }

    /** Events dropped because the queue was full (or the sink closed). */
    val droppedEvents: Long get() = dropped.get()

    /** Queues one event (a JSON object). Never blocks. */
    override fun emit(eventJson: String) {
        if (closed || !queue.offer(eventJson)) dropped.incrementAndGet()
    }

    /** Writes what is queued, closes the file and stops the writer thread. */
    override fun close() {
        closed = true
        writer.join(10_000)
    }

    private fun drain() {
        file.absoluteFile.parentFile?.mkdirs()
        file.bufferedWriter().use { out ->
            while (true) {
                val event = queue.poll(100, TimeUnit.MILLISECONDS)
                if (event == null) {
                    out.flush()
                    if (closed && queue.isEmpty()) return
                    continue
                }
                write(out, event)
            }
        }
    }

    private fun write(out: BufferedWriter, event: String) {
        out.write(event)
        out.write("\n")
    }
}
