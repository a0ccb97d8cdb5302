package dev.linekit

import okhttp3.Dns
import okhttp3.OkHttpClient

/**
 * Installs Linekit on this client, keeping what the builder already has:
 * - [LineKitInterceptor] as the FIRST application interceptor (so interceptors added
 *   before or after that sign requests or log final URLs see the rewritten request);
 * - [LineKitDns] as the `Dns`, falling back to [delegateDns] whenever the engine has no
 *   HTTPDNS answer — by default the `Dns` already set on this builder (`Dns.SYSTEM` if
 *   none), so an app's own resolver still answers every lookup Linekit does not;
 * - [LineKitEventListener.Factory] as the event listener factory, chained with the
 *   factory already set on this builder, so an app's (or an APM SDK's) listener still
 *   receives every event.
 *
 * Calling it twice with the same builder does not stack Linekit on itself.
 */
@JvmOverloads
fun OkHttpClient.Builder.lineKit(lineKit: LineKit, delegateDns: Dns? = null): OkHttpClient.Builder {
    // The builder keeps its Dns and listener factory private: read them off a client.
    val current = build()
    val existingDns = when (val d = current.dns) {
        is LineKitDns -> d.delegate
        else -> d
    }
    val existingFactory = when (val f = current.eventListenerFactory) {
        is LineKitEventListener.Factory -> f.chained
        else -> f
    }
    if (interceptors().none { it is LineKitInterceptor }) interceptors().add(0, LineKitInterceptor(lineKit))
    dns(LineKitDns(lineKit, delegateDns ?: existingDns))
    // OkHttp's default factory hands out EventListener.NONE, which the factory skips.
    eventListenerFactory(LineKitEventListener.Factory(lineKit, existingFactory))
    return this
}
