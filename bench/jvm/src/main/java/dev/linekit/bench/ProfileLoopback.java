package dev.linekit.bench;

/**
 * Diagnostic for profilers (JFR): runs ONE of {@link InterceptorBench}'s loopback clients
 * in a loop for a while, so a sampling profile shows where its time goes. Example:
 * {@code java -XX:StartFlightRecording=filename=lk.jfr,settings=profile ... ProfileLoopback lineKitJni 20}
 * then {@code jfr print --events jdk.ExecutionSample lk.jfr}.
 *
 * Usage: ProfileLoopback plain|lineKitJni|interceptorOnly|listenerOnly [seconds]
 */
public final class ProfileLoopback {
  public static void main(String[] args) throws Exception {
    String which = args.length > 0 ? args[0] : "lineKitJni";
    long seconds = args.length > 1 ? Long.parseLong(args[1]) : 20;
    InterceptorBench b = new InterceptorBench();
    b.setUp();
    InterceptorBench.Target target = b.targets.get(which);
    if (target == null) throw new IllegalArgumentException("unknown client " + which + ": " + b.targets.keySet());
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long n = 0;
    while (System.nanoTime() < end) {
      target.get();
      n++;
    }
    System.out.printf("%s: %d requests, %.1f us each%n", which, n, seconds * 1e6 / n);
    b.tearDown();
    System.exit(0);
  }
}
