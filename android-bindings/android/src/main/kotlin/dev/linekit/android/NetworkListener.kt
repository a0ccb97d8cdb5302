package dev.linekit.android

/**
 * Hears each default-network state [LineKitAndroid] forwarded to the engine (e.g. for a
 * UI), on the network callback's or the scheduler's thread. Must be cheap. A
 * `fun interface`: Kotlin and Java pass a lambda.
 */
fun interface NetworkListener {
    /** The state just sent to the engine. */
    fun onNetwork(snapshot: NetworkSnapshot)
}
