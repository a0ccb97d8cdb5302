package dev.linekit

/**
 * Receives the engine's sampled trace events, each one JSON object (redacted: no URLs,
 * tokens or host lists), in the order the engine emits them: set with
 * [LineKit.Builder.traceSink]. [TraceFileSink] writes them to a file.
 *
 * Called on the request path: an implementation must be cheap and must not block.
 * A `fun interface`: Kotlin passes a lambda, Java a lambda (`event -> ...`).
 */
fun interface TraceSink {
    /** One event, a JSON object in the documented trace format (`docs/trace-format.md`). */
    fun emit(eventJson: String)
}
