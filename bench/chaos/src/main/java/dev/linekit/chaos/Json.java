package dev.linekit.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Just enough JSON writing for the hand harnesses (maps, lists, numbers, strings). */
final class Json {
  private Json() {}

  static Map<String, Object> obj() {
    return new LinkedHashMap<>();
  }

  static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.toString();
  }

  @SuppressWarnings("unchecked")
  private static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof Map) {
      sb.append('{');
      Iterator<Map.Entry<String, Object>> it = ((Map<String, Object>) v).entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<String, Object> e = it.next();
        write(sb, e.getKey());
        sb.append(':');
        write(sb, e.getValue());
        if (it.hasNext()) sb.append(',');
      }
      sb.append('}');
    } else if (v instanceof List) {
      sb.append('[');
      List<Object> l = (List<Object>) v;
      for (int i = 0; i < l.size(); i++) {
        if (i > 0) sb.append(',');
        write(sb, l.get(i));
      }
      sb.append(']');
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      sb.append(Double.isFinite(d) ? String.valueOf(Math.round(d * 1000.0) / 1000.0) : "null");
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else {
      sb.append('"').append(v.toString().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    }
  }

  static void save(String path, Object v) throws IOException {
    String text = write(v);
    System.out.println(text);
    if (path != null) Files.write(Path.of(path), (text + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** Quantile of sorted values (nearest rank). */
  static long q(long[] sorted, double q) {
    if (sorted.length == 0) return -1;
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
  }

  static long[] sorted(long[] v, int n) {
    long[] c = Arrays.copyOf(v, n);
    Arrays.sort(c);
    return c;
  }
}
