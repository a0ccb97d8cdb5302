package dev.linekit.android

import android.Manifest
import android.content.Context
import android.content.pm.PackageManager
import android.net.ConnectivityManager
import android.net.LinkProperties
import android.net.Network
import android.net.NetworkCapabilities
import android.os.Build
import android.util.Log
import dev.linekit.LineKit
import okhttp3.ConnectionPool
import okhttp3.OkHttpClient
import java.lang.ref.WeakReference
import java.util.concurrent.CopyOnWriteArrayList

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
 * Changes are forwarded at once after a quiet period; a storm that follows (a flapping
 * radio, a VPN reconnecting) is coalesced into at most one forward per `coalesceMs`
 * (default [DEFAULT_COALESCE_MS]), and the final state always reaches the core. A state
 * equal to the one the core already has is not sent again. At attach time the current
 * default network is forwarded at once, so requests made right after [attach] already run
 * on the right network key.
 *
 * API 24–25 do not promise `onCapabilitiesChanged` right after `onAvailable`: there the
 * capabilities and link properties are read from the platform when a network becomes the
 * default, and read again after 1, 5 and 30 s until the network is validated, so HTTPDNS is
 * not left bypassed on a validated network.
 *
 * Some Android 11 builds throw `SecurityException` from `registerDefaultNetworkCallback` or
 * `getNetworkCapabilities` even with the permission granted. [attach] catches it, logs it
 * once, and Linekit runs without network awareness: the core is told there is no known
 * network (HTTPDNS bypassed, the platform resolver answers every lookup) while routing and
 * failover across lines work as before. [networkAwarenessError] holds the exception.
 *
 * Connections: idle connections of a business client that follows the default network were
 * opened on the previous default network and may be dead (a lost Wi-Fi keeps no route):
 * reusing one costs a full read timeout and would count against the line. Clients given to
 * [evictIdleConnectionsOnNetworkChange] drop their idle connections whenever the default
 * network's handle changes (calls in flight keep theirs). Clients bound to one network
 * (`clientFor`) are not affected by default-network changes.
 *
 * Needs `android.permission.ACCESS_NETWORK_STATE` (declared in the library's manifest).
 * Call [detach] to unregister; detach before closing the engine.
 */
class LineKitAndroid private constructor(
    private val connectivity: ConnectivityManager,
    private val scheduler: Scheduler,
    coalesceMs: Long,
    private val forward: (NetworkSnapshot) -> Unit,
) {
    private val lock = Any()
    private var current: Network? = null
    private var caps: NetworkCapabilities? = null
    private var link: LinkProperties? = null
    private var detached = false
    private var awarenessError: SecurityException? = null
    private val pools = CopyOnWriteArrayList<WeakReference<ConnectionPool>>()
    private var forwardedHandle: Long? = null
    private val coalescer = Coalescer(scheduler, coalesceMs) { snapshot: NetworkSnapshot ->
        try {
            forward(snapshot)
        } catch (e: Exception) {
            // Typically LineKitException.Closed: the engine was closed before detach().
            Log.w(TAG, "network change not forwarded: ${e.javaClass.simpleName}")
        }
        val before = forwardedHandle
        forwardedHandle = snapshot.handle
        if (before != null && before != snapshot.handle) evictIdleConnections()
    }

    private val callback = object : ConnectivityManager.NetworkCallback() {
        override fun onAvailable(network: Network) = update(network) {
            if (current != network) {
                current = network
                caps = null
                link = null
                if (Build.VERSION.SDK_INT < Build.VERSION_CODES.O) {
                    readPlatformState(network)
                    recheckLater(network, 0)
                }
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

    /**
     * The `SecurityException` the platform threw when [attach] registered the callback
     * (a known Android 11 bug), or null: Linekit then runs without network awareness.
     */
    val networkAwarenessError: SecurityException? get() = synchronized(lock) { awarenessError }

    /**
     * Makes [client]'s idle connections close whenever the default network changes (see the
     * class docs); use it for clients built with `OkHttpClient.Builder.lineKit` that follow
     * the default network. The pool is held weakly. Returns this monitor.
     */
    fun evictIdleConnectionsOnNetworkChange(client: OkHttpClient): LineKitAndroid = apply {
        pools.add(WeakReference(client.connectionPool))
    }

    private fun evictIdleConnections() {
        pools.removeAll { ref -> ref.get()?.also { it.evictAll() } == null }
    }

    /** Reads capabilities and link properties of [network] from the platform (pre-O only). */
    private fun readPlatformState(network: Network) {
        try {
            caps = connectivity.getNetworkCapabilities(network)
            link = connectivity.getLinkProperties(network)
        } catch (e: SecurityException) {
            reportUnavailable(e)
        }
    }

    /** On API 24–25: reads [network]'s state again after [RECHECK_MS]`[attempt]` unless validated. */
    private fun recheckLater(network: Network, attempt: Int) {
        if (attempt >= RECHECK_MS.size) return
        scheduler.schedule(RECHECK_MS[attempt]) {
            update(network) {
                val validated = caps?.hasCapability(NetworkCapabilities.NET_CAPABILITY_VALIDATED) == true
                if (current == network && !validated) {
                    readPlatformState(network)
                    recheckLater(network, attempt + 1)
                }
            }
        }
    }

    /** Logs [e] once for this monitor and leaves the core without network awareness. */
    private fun reportUnavailable(e: SecurityException) {
        if (awarenessError != null) return
        awarenessError = e
        Log.w(TAG, UNAVAILABLE + " (${e.javaClass.simpleName}: ${e.message})")
    }

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
        try {
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
        } catch (e: SecurityException) {
            synchronized(lock) {
                reportUnavailable(e)
                current = null
                caps = null
                link = null
                // No network known: the core bypasses HTTPDNS; lines are unaffected.
                coalescer.forwardNow(NetworkSnapshot.NONE)
                coalescer.stop()
            }
        }
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

        /** When API 24–25 read an unvalidated default network's state again. */
        private val RECHECK_MS = longArrayOf(1_000L, 5_000L, 30_000L)

        internal const val UNAVAILABLE: String =
            "network callback unavailable: Linekit runs without network awareness " +
                "(HTTPDNS bypassed, lines unaffected)"

        internal const val MISSING_PERMISSION: String =
            "LineKitAndroid.attach needs android.permission.ACCESS_NETWORK_STATE: add " +
                "<uses-permission android:name=\"android.permission.ACCESS_NETWORK_STATE\"/> to " +
                "AndroidManifest.xml (the Linekit AAR declares it; check for a tools:node=\"remove\")"

        /**
         * Starts forwarding the default network of [context]'s device to [lineKit].
         *
         * @param scheduler where coalesced forwards and API 24–25 re-reads run (default:
         *   the main looper).
         * @param coalesceMs the coalescing window; 0 forwards every change.
         * @param onNetwork called after each forward with the state sent (e.g. for a UI);
         *   runs on the network callback's or the scheduler's thread, must be cheap.
         * @throws SecurityException if `ACCESS_NETWORK_STATE` is not granted (a platform
         *   `SecurityException` despite the permission is caught: see the class docs).
         */
        @JvmStatic
        @JvmOverloads
        fun attach(
            context: Context,
            lineKit: LineKit,
            scheduler: Scheduler = HandlerScheduler(),
            coalesceMs: Long = DEFAULT_COALESCE_MS,
            onNetwork: NetworkListener? = null,
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
                onNetwork?.onNetwork(s)
            }
            monitor.start()
            return monitor
        }
    }
}
