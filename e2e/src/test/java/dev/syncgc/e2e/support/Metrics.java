package dev.syncgc.e2e.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A scrape of {@code /metrics} in the Prometheus text format, simply: each sample line is {@code name{labels} value}. */
public record Metrics(List<Sample> samples) {
  private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+).*$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

  public record Sample(String name, Map<String, String> labels, double value, String line) {}

  public static Metrics parse(String text) {
    List<Sample> samples = new ArrayList<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        continue;
      }
      Map<String, String> labels = new LinkedHashMap<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      double value;
      try {
        value = Double.parseDouble(m.group(4));
      } catch (NumberFormatException e) {
        continue;
      }
      samples.add(new Sample(m.group(1), labels, value, line));
    }
    return new Metrics(List.copyOf(samples));
  }

  /** The sum of the samples of {@code name} carrying (at least) these labels; empty if none. */
  public OptionalDouble sum(String name, Map<String, String> labels) {
    List<Sample> matching = matching(name, labels);
    return matching.isEmpty() ? OptionalDouble.empty()
        : OptionalDouble.of(matching.stream().mapToDouble(Sample::value).sum());
  }

  public List<String> lines(String name) {
    return matching(name, Map.of()).stream().map(Sample::line).toList();
  }

  public List<String> namesStartingWith(String prefix) {
    return samples.stream().map(Sample::name).filter(n -> n.startsWith(prefix)).distinct().toList();
  }

  /** Every metric name of the scrape, sorted. */
  public Set<String> names() {
    Set<String> names = new TreeSet<>();
    samples.forEach(s -> names.add(s.name()));
    return names;
  }

  /** Whether some sample of {@code name} carries {@code label} (with any value). */
  public boolean hasLabel(String name, String label) {
    return matching(name, Map.of()).stream().anyMatch(s -> s.labels().containsKey(label));
  }

  private List<Sample> matching(String name, Map<String, String> labels) {
    return samples.stream()
        .filter(s -> s.name().equals(name))
        .filter(s -> labels.entrySet().stream().allMatch(e -> e.getValue().equals(s.labels().get(e.getKey()))))
        .toList();
  }
}
