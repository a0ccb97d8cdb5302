package dev.linekit

/**
 * Hears of attempts routed onto a line whose deployment fingerprint (`version_header`)
 * differs from the one its business line was served from ([RouteTag.versionMismatch]):
 * set with [LineKit.Builder.onVersionMismatch]. Called on the calling thread before the
 * attempt is sent: must be cheap. A `fun interface`: Kotlin and Java pass a lambda.
 */
fun interface VersionMismatchListener {
    /** The attempt about to be sent, tagged with its route. */
    fun onVersionMismatch(tag: RouteTag)
}
