package dev.linekit.chaos;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Kernel faults: iptables / ip6tables rules in the OUTPUT chain of the client namespace the
 * JVM runs in (DROP = black hole, REJECT = unreachable / reset; with {@code -t nat}, DNAT =
 * new connections sent elsewhere), per address family.
 */
final class Kernel {
  private final List<String[]> added = new ArrayList<>();

  /**
   * Appends a rule: {@code tool} is iptables or ip6tables, {@code rule} its arguments (a
   * table other than filter as {@code -t TABLE} among them).
   */
  void add(String tool, String... rule) throws IOException, InterruptedException {
    String[] cmd = new String[rule.length + 3];
    cmd[0] = tool;
    cmd[1] = "-A";
    cmd[2] = "OUTPUT";
    System.arraycopy(rule, 0, cmd, 3, rule.length);
    run(cmd);
    String[] del = cmd.clone();
    del[1] = "-D";
    added.add(del);
  }

  /** Removes every rule added. */
  void clear() throws IOException, InterruptedException {
    for (int i = added.size() - 1; i >= 0; i--) {
      run(added.get(i));
    }
    added.clear();
  }

  private static void run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (p.waitFor() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out.trim());
    }
  }
}
