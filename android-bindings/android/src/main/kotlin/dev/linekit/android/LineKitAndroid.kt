package dev.linekit.android

import android.Manifest
import android.content.Context
import android.content.pm.PackageManager
import android.net.ConnectivityManager
import android.net.LinkProperties
import android.net.Network
import android.net.NetworkCapabilities
import android.util.Log
import dev.linekit.LineKit

/**
 * Feeds Android's default-network signals to a [LineKit] engine.
 *
 * [attach] registers a default-network callback and forwards, through
 * [LineKit.onNetworkChanged], the network handle, whether it is validated
 * (`NET_CAPABILITY_VALIDATED`, taken from `onCapabilitiesChanged` — never queried inside
 * `onAvailable`, where the platform may not have it yet), VPN, Private DNS mode, HTTP proxy
 * and transport. `onLost` clears only the network it names: a late loss of a network that
 * is no longer the default changes nothing.
 *
 * Callback storms (a flapping radio, a VPN reconnecting) are coalesced: the first change
 * after a quiet period opens a window of `coalesceMs` (default [DEFAULT_COALESCE_MS]); the
 * core receives the latest state once when it closes, and nothing if that state is the one
 * it already has. At attach time the current default network is forwarded at once, so
 * requests made right after [attach] already run on the right network key.
 *
 * Needs `android.permission.ACCESS_NETWORK_STATE` (declared in the library's manifest).
 * Call [detach] to unregister; detach before closing the engine.
 */
class LineKitAndroid private constructor(
    private val connectivity: ConnectivityManager,
    scheduler: Scheduler,
    coalesceMs: Long,
    private val forward: (NetworkSnapshot) -> Unit,
) {
    private val lock = Any()
    private var current: Network? = null
    private var caps: NetworkCapabilities? = null
    private var link: LinkProperties? = null
    private var detached = false
    private val coalescer = Coalescer(scheduler, coalesceMs) { snapshot: NetworkSnapshot ->
        try {
            forward(snapshot)
        } catch (e: Exception) {
            // Typically LineKitException.Closed: the engine was closed before detach().
            Log.w(TAG, "network change not forwarded: ${e.javaClass.simpleName}")
        }
    }

    private val callback = object : ConnectivityManager.NetworkCallback() {
        override fun onAvailable(network: Network) = update(network) {
            if (current != network) {
                current = network
                caps = null
                link = null
            }
        }

        override fun onCapabilitiesChanged(network: Network, networkCapabilities: NetworkCapabilities) =
            update(network) { if (current == network) caps = networkCapabilities }

        override fun onLinkPropertiesChanged(network: Network, linkProperties: LinkProperties) =
            update(network) { if (current == network) link = linkProperties }

        override fun onLost(network: Network) = update(network) {
            if (current == network) {
                current = null
                caps = null
                link = null
            }
        }
    }

    /** The state forwarded to the core last ([NetworkSnapshot.NONE] before any). */
    val network: NetworkSnapshot get() = coalescer.lastForwarded ?: NetworkSnapshot.NONE

    /** The default network as the callback last reported it (null when there is none). */
    val defaultNetwork: Network? get() = synchronized(lock) { current }

    /** Whether [detach] was called. */
    val isDetached: Boolean get() = synchronized(lock) { detached }

    private inline fun update(network: Network, change: () -> Unit) {
        synchronized(lock) {
            if (detached) return
            val before = current
            change()
            // Events about a network that is not (or no longer) the default are dropped.
            if (before != network && current != network) return
            coalescer.offer(snapshotLocked())
        }
    }

    private fun snapshotLocked(): NetworkSnapshot {
        val network = current ?: return NetworkSnapshot.NONE
        return NetworkSnapshot.of(network.networkHandle, caps, link)
    }

    private fun start() {
        // Seed from the current default network so the core knows it before the first
        // callback arrives; the callback's identical first report is then deduplicated.
        val active = connectivity.activeNetwork
        synchronized(lock) {
            current = active
            caps = active?.let { connectivity.getNetworkCapabilities(it) }
            link = active?.let { connectivity.getLinkProperties(it) }
            coalescer.forwardNow(snapshotLocked())
        }
        connectivity.registerDefaultNetworkCallback(callback)
    }

    /** Unregisters the callback and drops any pending forward. Idempotent. */
    fun detach() {
        synchronized(lock) {
            if (detached) return
            detached = true
            coalescer.stop()
        }
        try {
            connectivity.unregisterNetworkCallback(callback)
        } catch (e: IllegalArgumentException) {
            // Already unregistered (or never registered because start failed).
        }
    }

    companion object {
        /** Log tag of the Android integration. */
        const val TAG: String = "LineKit"

        /** Default coalescing window for network callback storms, in milliseconds. */
        const val DEFAULT_COALESCE_MS: Long = 1_000L

        internal const val MISSING_PERMISSION: String =
            "LineKitAndroid.attach needs android.permission.ACCESS_NETWORK_STATE: add " +
                "<uses-permission android:name=\"android.permission.ACCESS_NETWORK_STATE\"/> to " +
                "AndroidManifest.xml (the Linekit AAR declares it; check for a tools:node=\"remove\")"

        /**
         * Starts forwarding the default network of [context]'s device to [lineKit].
         *
         * @param scheduler where coalesced forwards run (default: the main looper).
         * @param coalesceMs the coalescing window; 0 forwards on the next scheduler turn.
         * @param onNetwork called after each forward with the state sent (e.g. for a UI);
         *   runs on the scheduler's thread, must be cheap.
         * @throws SecurityException if `ACCESS_NETWORK_STATE` is not granted.
         */
        @JvmStatic
        @JvmOverloads
        fun attach(
            context: Context,
            lineKit: LineKit,
            scheduler: Scheduler = HandlerScheduler(),
            coalesceMs: Long = DEFAULT_COALESCE_MS,
            onNetwork: ((NetworkSnapshot) -> Unit)? = null,
        ): LineKitAndroid {
            require(coalesceMs >= 0) { "coalesceMs must be >= 0" }
            if (context.checkSelfPermission(Manifest.permission.ACCESS_NETWORK_STATE) !=
                PackageManager.PERMISSION_GRANTED
            ) {
                throw SecurityException(MISSING_PERMISSION)
            }
            val app = context.applicationContext ?: context
            val connectivity = app.getSystemService(ConnectivityManager::class.java)
                ?: throw IllegalStateException("no ConnectivityManager on this device")
            val monitor = LineKitAndroid(connectivity, scheduler, coalesceMs) { s ->
                lineKit.onNetworkChanged(s.handle, s.validated, s.vpn, s.privateDns, s.proxy, s.transport)
                onNetwork?.invoke(s)
            }
            monitor.start()
            return monitor
        }
    }
}
