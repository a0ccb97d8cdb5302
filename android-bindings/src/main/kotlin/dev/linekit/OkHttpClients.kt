package dev.linekit

import okhttp3.OkHttpClient

/**
 * Installs Linekit on this client: [LineKitInterceptor] as the FIRST application
 * interceptor (so interceptors added before or after that sign requests or log final
 * URLs see the rewritten request) and [LineKitEventListener.Factory] as the event
 * listener factory (replacing any set before). The `Dns` arrives with the HTTPDNS work.
 */
fun OkHttpClient.Builder.lineKit(lineKit: LineKit): OkHttpClient.Builder {
    interceptors().add(0, LineKitInterceptor(lineKit))
    eventListenerFactory(LineKitEventListener.Factory())
    return this
}
