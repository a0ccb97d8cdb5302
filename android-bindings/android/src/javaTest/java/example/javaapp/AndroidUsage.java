package example.javaapp;

import android.content.Context;
import android.net.Network;
import android.util.Log;
import dev.linekit.LineKit;
import dev.linekit.LineKitException;
import dev.linekit.LineKitOkHttp;
import dev.linekit.android.HandlerScheduler;
import dev.linekit.android.LineKitAndroid;
import dev.linekit.android.LineKitAndroidConfig;
import dev.linekit.android.NetworkClients;
import java.io.IOException;
import okhttp3.OkHttpClient;

/**
 * The Android-only part of a Java app's integration: the sealed config asset, the default
 * storage, the network monitor (with and without its optional arguments, the listener as a
 * lambda) and a client bound to one network. Compiled against the framework jar like the
 * rest of this source set, never run: the host JVM has no Android runtime (the Robolectric
 * suite runs these calls from Kotlin). A Kotlin-only signature here fails the build.
 */
final class AndroidUsage {
  private AndroidUsage() {}

  /** What {@code Application.onCreate} does. */
  static LineKit start(Context context, byte[] key) throws LineKitException {
    LineKit.Builder builder = new LineKit.Builder();
    try {
      LineKitAndroidConfig.sealedConfigAsset(builder, context, "linekit/config.sealed", key);
    } catch (IOException e) {
      Log.w("app", "no sealed config asset: " + e);
    }
    LineKitAndroidConfig.defaultStorage(builder, context);
    LineKit kit = builder.build();
    LineKitAndroid.attach(context, kit);
    LineKitAndroid monitor = LineKitAndroid.attach(context, kit, new HandlerScheduler(), 500L,
        snapshot -> Log.i("app", "network " + snapshot.getHandle() + " validated=" + snapshot.getValidated()));
    monitor.evictIdleConnectionsOnNetworkChange(LineKitOkHttp.install(new OkHttpClient.Builder(), kit).build());
    return kit;
  }

  /** A client whose connections all use {@code network}. */
  static OkHttpClient boundTo(LineKit kit, Network network) {
    OkHttpClient plain = NetworkClients.clientFor(kit, network);
    return NetworkClients.clientFor(kit, network, plain.newBuilder());
  }
}
