package dev.syncgc.bench;

import java.util.Map;
import java.util.TreeMap;

/** Reads Prometheus text exposition: sums of a metric's samples, by label if asked. */
final class Prom {
  private Prom() {}

  /** Sum of every sample of the metric whose labels contain labelFilter (e.g. {@code area="heap"}), or null for all. */
  static double sum(String text, String metric, String labelFilter) {
    double total = 0;
    boolean found = false;
    for (String line : text.split("\n")) {
      Sample s = parse(line);
      if (s != null && s.name.equals(metric) && (labelFilter == null || s.labels.contains(labelFilter))) {
        total += s.value;
        found = true;
      }
    }
    return found ? total : Double.NaN;
  }

  /** Sums of the metric's samples grouped by one label's value. */
  static Map<String, Double> byLabel(String text, String metric, String label) {
    Map<String, Double> out = new TreeMap<>();
    String key = label + "=\"";
    for (String line : text.split("\n")) {
      Sample s = parse(line);
      if (s == null || !s.name.equals(metric)) {
        continue;
      }
      int i = s.labels.indexOf(key);
      String value = i < 0 ? "" : s.labels.substring(i + key.length(), s.labels.indexOf('"', i + key.length()));
      out.merge(value, s.value, Double::sum);
    }
    return out;
  }

  /** after's sum less before's (none there counts as 0); NaN when after holds no sample. */
  static double delta(String before, String after, String metric, String labelFilter) {
    double a = sum(after, metric, labelFilter);
    double b = sum(before, metric, labelFilter);
    return Double.isNaN(a) ? Double.NaN : a - (Double.isNaN(b) ? 0 : b);
  }

  /** {@link #byLabel}'s sums in after less those in before, the label values that changed only, in their order. */
  static Map<String, Double> deltaByLabel(String before, String after, String metric, String label) {
    Map<String, Double> old = byLabel(before, metric, label);
    Map<String, Double> out = new TreeMap<>(byLabel(after, metric, label));
    out.replaceAll((value, n) -> n - old.getOrDefault(value, 0.0));
    out.values().removeIf(n -> n == 0);
    return out;
  }

  private record Sample(String name, String labels, double value) {}

  private static Sample parse(String line) {
    line = line.strip();
    if (line.isEmpty() || line.startsWith("#")) {
      return null;
    }
    String name;
    String labels = "";
    String rest;
    int brace = line.indexOf('{');
    int space = line.indexOf(' ');
    if (brace >= 0 && (space < 0 || brace < space)) {
      int close = line.lastIndexOf('}');
      name = line.substring(0, brace);
      labels = line.substring(brace + 1, close);
      rest = line.substring(close + 1).strip();
    } else if (space > 0) {
      name = line.substring(0, space);
      rest = line.substring(space + 1).strip();
    } else {
      return null;
    }
    String value = rest.split("\\s+")[0];
    try {
      return new Sample(name, labels, Double.parseDouble(value));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
