package dev.linekit

/**
 * Receives the report of the non-blocking [LineKit.diagnose], on a Linekit thread.
 * A `fun interface`: Kotlin and Java pass a lambda.
 */
fun interface DiagnosisCallback {
    /** The finished diagnosis. */
    fun onReport(report: DiagnosisReport)
}
