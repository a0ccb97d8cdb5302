package dev.linekit

import okhttp3.Dns
import okhttp3.OkHttpClient

/**
 * Installs Linekit on this client: [LineKitInterceptor] as the FIRST application
 * interceptor (so interceptors added before or after that sign requests or log final
 * URLs see the rewritten request), [LineKitDns] as the `Dns` (falling back to
 * [delegateDns] whenever the engine has no HTTPDNS answer; replaces any `Dns` set
 * before, so pass yours here) and [LineKitEventListener.Factory] as the event listener
 * factory (replacing any set before; it also reports per-address connect results).
 */
@JvmOverloads
fun OkHttpClient.Builder.lineKit(lineKit: LineKit, delegateDns: Dns = Dns.SYSTEM): OkHttpClient.Builder {
    interceptors().add(0, LineKitInterceptor(lineKit))
    dns(LineKitDns(lineKit, delegateDns))
    eventListenerFactory(LineKitEventListener.Factory(lineKit))
    return this
}
