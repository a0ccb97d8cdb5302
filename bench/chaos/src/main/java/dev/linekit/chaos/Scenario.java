package dev.linekit.chaos;

/**
 * One chaos scenario: the fault it injects on the serving line (line1) at {@code onsetMs},
 * the path its GETs fetch, and whether HTTPDNS (through the DoH server) is on.
 *
 * @param allDownAtMs when every line is down (no healthy line is left), or -1
 * @param httpdns {@code null}, {@code doh-json} or {@code doh-wire}
 * @param movesAway whether traffic is expected to leave line1 (a line fault on line1 only)
 * @param tls whether the lines are HTTPS (nginx TLS blocks) instead of cleartext
 * @param lineFault the exception a client's attempt on line1 fails with once the fault is
 *     on (its simple class name), or {@code null} when the scenario does not check it
 * @param faultMs how long the load goes on after the onset
 */
record Scenario(String name, String fault, String path, Fault inject, long allDownAtMs,
    String httpdns, boolean movesAway, boolean tls, String lineFault, long faultMs) {

  /** A scenario over the cleartext lines, with the suite's fault time. */
  Scenario(String name, String fault, String path, Fault inject, long allDownAtMs,
      String httpdns, boolean movesAway) {
    this(name, fault, path, inject, allDownAtMs, httpdns, movesAway, false, null,
        ChaosSuite.FAULT_MS);
  }

  /** Applies the fault; {@code phase} 0 at the onset, 1 when every line goes down. */
  interface Fault {
    void apply(Faults f, int phase) throws Exception;
  }

  /** What a fault can touch. */
  record Faults(Toxiproxy toxiproxy, Kernel kernel, String serverV4, String serverV6) {}
}
