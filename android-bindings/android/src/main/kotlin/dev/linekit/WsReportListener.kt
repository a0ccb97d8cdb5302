package dev.linekit

/**
 * Receives one [WsConnectionReport] per WebSocket connection opened by [LineKitWebSocket],
 * when the connection ends. Must be cheap. A `fun interface`: Kotlin and Java pass a lambda.
 */
fun interface WsReportListener {
    /** The report of the connection that just ended. */
    fun onReport(report: WsConnectionReport)
}
