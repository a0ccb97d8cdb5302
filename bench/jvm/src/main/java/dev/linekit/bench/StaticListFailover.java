package dev.linekit.bench;

import java.io.IOException;
import java.util.List;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.Response;

/**
 * The common hand-written failover Linekit is compared with: a static host list; after
 * N consecutive failures (I/O error or 5xx) on the current host, switch to the next one;
 * after a fixed cooldown, go back to the first host. No in-call retry, no probes.
 */
final class StaticListFailover implements Interceptor {
  private final List<HttpUrl> hosts;
  private final int threshold;
  private final long cooldownNanos;
  private int current;
  private int consecutiveFailures;
  private long switchedAt;

  StaticListFailover(List<HttpUrl> hosts, int threshold, long cooldownMs) {
    this.hosts = hosts;
    this.threshold = threshold;
    this.cooldownNanos = cooldownMs * 1_000_000L;
  }

  private synchronized int pick() {
    if (current != 0 && System.nanoTime() - switchedAt >= cooldownNanos) {
      current = 0;
      consecutiveFailures = 0;
    }
    return current;
  }

  private synchronized void result(int index, boolean ok) {
    if (index != current) return;
    if (ok) {
      consecutiveFailures = 0;
      return;
    }
    if (++consecutiveFailures >= threshold) {
      current = (current + 1) % hosts.size();
      consecutiveFailures = 0;
      switchedAt = System.nanoTime();
    }
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    int index = pick();
    HttpUrl host = hosts.get(index);
    HttpUrl url = chain.request().url().newBuilder()
        .scheme(host.scheme()).host(host.host()).port(host.port()).build();
    try {
      Response r = chain.proceed(chain.request().newBuilder().url(url).build());
      result(index, r.code() < 500);
      return r;
    } catch (IOException e) {
      result(index, false);
      throw e;
    }
  }
}
