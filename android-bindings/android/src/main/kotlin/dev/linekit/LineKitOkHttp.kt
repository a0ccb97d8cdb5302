package dev.linekit

import dev.linekit.internal.BuilderSettings
import okhttp3.Dns
import okhttp3.OkHttpClient

/**
 * Installs Linekit on an OkHttp client builder, keeping what the builder already has:
 * - [LineKitInterceptor] as the FIRST application interceptor (so interceptors added
 *   before or after that sign requests or log final URLs see the rewritten request);
 * - [LineKitDns] as the `Dns`, falling back to `delegateDns` whenever the engine has no
 *   HTTPDNS answer — by default the `Dns` already set on the builder (`Dns.SYSTEM` if
 *   none), so an app's own resolver still answers every lookup Linekit does not;
 * - [LineKitEventListener.Factory] as the event listener factory, chained with the
 *   factory already set on the builder, so an app's (or an APM SDK's) listener still
 *   receives every event.
 *
 * Installing twice on the same builder does not stack Linekit on itself. The builder's
 * settings are read without building a client.
 *
 * Java: `LineKitOkHttp.install(new OkHttpClient.Builder(), kit).build()`; Kotlin:
 * `OkHttpClient.Builder().lineKit(kit).build()`.
 */
object LineKitOkHttp {
    /**
     * Installs [lineKit] on [builder] (see the object docs) and returns [builder].
     *
     * @param delegateDns the resolver [LineKitDns] falls back to; null keeps the builder's.
     */
    @JvmStatic
    @JvmOverloads
    fun install(builder: OkHttpClient.Builder, lineKit: LineKit, delegateDns: Dns? = null): OkHttpClient.Builder {
        val current = BuilderSettings.read(builder)
        val existingDns = when (val d = current.dns) {
            is LineKitDns -> d.delegate
            else -> d
        }
        val existingFactory = when (val f = current.eventListenerFactory) {
            is LineKitEventListener.Factory -> f.chained
            else -> f
        }
        // One Linekit interceptor, first, and it is this engine's: installing another
        // LineKit replaces the earlier one where it stands, as Dns and the factory are.
        val interceptors = builder.interceptors()
        val installed = interceptors.indexOfFirst { it is LineKitInterceptor }
        if (installed < 0) {
            interceptors.add(0, LineKitInterceptor(lineKit))
        } else if ((interceptors[installed] as LineKitInterceptor).lineKit !== lineKit) {
            interceptors[installed] = LineKitInterceptor(lineKit)
        }
        builder.dns(LineKitDns(lineKit, delegateDns ?: existingDns))
        // OkHttp's default factory hands out EventListener.NONE, which the factory skips.
        builder.eventListenerFactory(LineKitEventListener.Factory(lineKit, existingFactory))
        return builder
    }
}

/**
 * Installs Linekit on this client builder: [LineKitOkHttp.install] (the interceptor first,
 * [LineKitDns] over the builder's `Dns` or [delegateDns], the event listener factory chained
 * with the builder's). Returns this builder. Kotlin only; Java calls [LineKitOkHttp.install].
 */
@JvmSynthetic
fun OkHttpClient.Builder.lineKit(lineKit: LineKit, delegateDns: Dns? = null): OkHttpClient.Builder =
    LineKitOkHttp.install(this, lineKit, delegateDns)
