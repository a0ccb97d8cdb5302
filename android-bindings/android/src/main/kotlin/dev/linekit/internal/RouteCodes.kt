package dev.linekit.internal

/**
 * The strings behind the codes of route answers, per engine handle: a route answer names
 * its line entry (business line, line id, version header, body limit) and its target
 * entry (the line's origin and path prefix) by codes, and this table fetches the strings
 * of a code from the engine the first time an answer names it (`NativeFast.codes`), so
 * every later answer reuses the same `String` and parsed origin objects.
 *
 * Codes belong to a generation of the engine's table (it starts a new one when it is
 * full); the table here holds one generation and follows the answers it is asked about.
 * Reads are one volatile load; fetches are serialised.
 */
internal class RouteCodes(private val handle: NativeHandle) {
    /** The strings a line code stands for. */
    internal class Line(val biz: String?, val line: String?, val versionHeader: String?, val bufferBodyMaxBytes: Long, val wouldLine: String?)

    /**
     * One generation's entries: [lines] and [targets] by code minus one. A null target is
     * one whose origin OkHttp rejects (the request then keeps its URL).
     */
    internal class Table(val generation: Int, val lines: Array<Line>, val targets: Array<RouteTarget?>) {
        /** Whether the codes [line] and [target] of [generation] are here (0 is always). */
        fun holds(generation: Int, line: Int, target: Int): Boolean =
            this.generation == generation && line <= lines.size && target <= targets.size
    }

    @Volatile
    private var table = Table(-1, emptyArray(), emptyArray())

    /**
     * The table holding the codes [line] and [target] of [generation], fetching what is
     * missing; null when the engine no longer holds that generation, or is closed.
     */
    fun table(generation: Int, line: Int, target: Int): Table? {
        val t = table
        return if (t.holds(generation, line, target)) t else fetch(generation, line, target)
    }

    @Synchronized
    private fun fetch(generation: Int, line: Int, target: Int): Table? {
        val held = table
        if (held.holds(generation, line, target)) return held
        val same = held.generation == generation
        val answer = handle.use {
            NativeFast.codes(it, generation, if (same) held.lines.size else 0, if (same) held.targets.size else 0)
        } ?: return null
        fun number(i: Int): Long = answer.getOrNull(i)?.toLongOrNull() ?: error("linekit: malformed codes answer")
        val got = number(CodesHead.GENERATION).toInt()
        val lineFrom = number(CodesHead.LINE_FROM).toInt()
        val lineCount = number(CodesHead.LINES).toInt()
        val targetFrom = number(CodesHead.TARGET_FROM).toInt()
        val targetCount = number(CodesHead.TARGETS).toInt()
        val append = got == held.generation
        check(lineFrom == (if (append) held.lines.size else 0) && targetFrom == (if (append) held.targets.size else 0)) {
            "linekit: malformed codes answer"
        }
        check(answer.size == CodesHead.SIZE + lineCount * LineEntry.SIZE + targetCount * TargetEntry.SIZE) {
            "linekit: malformed codes answer"
        }
        val lines = Array(lineCount) { i ->
            val at = CodesHead.SIZE + i * LineEntry.SIZE
            Line(
                answer[at + LineEntry.BIZ], answer[at + LineEntry.LINE], answer[at + LineEntry.VERSION_HEADER],
                answer[at + LineEntry.BUFFER_BODY_MAX_BYTES]?.toLongOrNull() ?: error("linekit: malformed codes answer"),
                answer[at + LineEntry.WOULD_LINE],
            )
        }
        val targets = Array(targetCount) { i ->
            val at = CodesHead.SIZE + lineCount * LineEntry.SIZE + i * TargetEntry.SIZE
            val scheme = answer[at + TargetEntry.SCHEME] ?: error("linekit: malformed codes answer")
            val host = answer[at + TargetEntry.HOST] ?: error("linekit: malformed codes answer")
            val port = answer[at + TargetEntry.PORT]?.let { it.toIntOrNull() ?: error("linekit: malformed codes answer") } ?: -1
            RouteTarget.originOf(scheme, host, port)?.let { RouteTarget(it, answer[at + TargetEntry.PATH_PREFIX] ?: "") }
        }
        val next = if (append) Table(got, held.lines + lines, held.targets + targets) else Table(got, lines, targets)
        table = next
        return if (next.holds(generation, line, target)) next else null
    }
}
