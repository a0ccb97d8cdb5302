package dev.linekit.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The nginx access logs of the lines: {@code msec|method|uri|x-request-id|x-line-biz|
 * x-line-fixed-host|x-line-keep-original-host|x-line-chaos|scheme|x-chaos-scenario}; every
 * server block of a line, cleartext or TLS, logs to its line's file. {@link #mark()}
 * remembers where each log ends; {@link #since(String)} reads what the servers logged after
 * it, less the requests another scenario's clients sent: a request held up by a fault can
 * reach a server late (a kernel that dropped it retransmits it once the rule is gone).
 */
final class ServerLogs {
  /** One request; {@code cleartext}: it arrived over plain HTTP, not HTTPS. */
  record Entry(String line, String method, String uri, String requestId, boolean xLineHeader,
      boolean cleartext) {}

  private final Path dir;
  private final int lines;
  private final long[] offsets;

  ServerLogs(Path dir, int lines) {
    this.dir = dir;
    this.lines = lines;
    this.offsets = new long[lines];
  }

  void mark() throws IOException {
    for (int i = 0; i < lines; i++) {
      Path p = dir.resolve("line" + (i + 1) + ".log");
      offsets[i] = Files.exists(p) ? Files.size(p) : 0;
    }
  }

  /**
   * The requests logged since {@link #mark()}: those {@code scenario}'s clients sent
   * (header {@link Load#SCENARIO_HEADER}) and those without the header (probes).
   */
  List<Entry> since(String scenario) throws IOException {
    List<Entry> out = new ArrayList<>();
    for (int i = 0; i < lines; i++) {
      Path p = dir.resolve("line" + (i + 1) + ".log");
      if (!Files.exists(p)) {
        continue;
      }
      byte[] all = Files.readAllBytes(p);
      String text = new String(all, (int) offsets[i], all.length - (int) offsets[i]);
      for (String row : text.split("\n")) {
        String[] f = row.split("\\|", -1);
        if (f.length < 8) {
          continue;
        }
        boolean leaked = false;
        for (int k = 4; k < 8; k++) {
          leaked |= !f[k].equals("-") && !f[k].isEmpty();
        }
        String sentFor = f.length >= 10 ? f[9] : "-";
        if (!sentFor.equals("-") && !sentFor.equals(scenario)) {
          continue;
        }
        boolean cleartext = f.length < 9 || !f[8].equals("https");
        out.add(new Entry("line" + (i + 1), f[1], f[2], f[3], leaked, cleartext));
      }
    }
    return out;
  }

  /** Request ids of POSTs that reached the servers more than once. */
  static Map<String, Integer> duplicatePosts(List<Entry> entries) {
    Map<String, Integer> seen = new HashMap<>();
    for (Entry e : entries) {
      if (e.method.equals("POST") && !e.requestId.equals("-")) {
        seen.merge(e.requestId, 1, Integer::sum);
      }
    }
    seen.values().removeIf(n -> n < 2);
    return seen;
  }
}
