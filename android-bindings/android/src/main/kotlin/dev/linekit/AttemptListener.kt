package dev.linekit

/**
 * Observes every attempt reported to the engine (outcome, status, timings): set with
 * [LineKit.Builder.onAttempt]. Called on the calling thread, right after the attempt is
 * reported: must be cheap. A `fun interface`: Kotlin and Java pass a lambda.
 */
fun interface AttemptListener {
    /** One attempt, as reported. */
    fun onAttempt(attempt: Attempt)
}
