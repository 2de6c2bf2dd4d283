package dev.syncgc.e2e.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The series selectors of a PromQL expression (also one with Grafana's {@code $variables}), found
 * without a full parser: selectors written {@code name{matchers}} and bare metric names, whatever
 * remains once functions, aggregations, keywords, ranges, strings and numbers are taken out. Enough
 * to check that every metric the chart's alerts and dashboard query is one the operator exports.
 */
public final class PromQl {
  /** A metric name, its {@code label="value"} matchers, and every label it matches on. */
  public record Selector(String metric, Map<String, String> equalTo, Set<String> labels) {}

  private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
  private static final String STRING = "\"(?:[^\"\\\\]|\\\\.)*\"";
  private static final Pattern SELECTOR = Pattern.compile("(" + NAME + ")\\s*\\{([^}]*)}");
  private static final Pattern MATCHER =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)\\s*(" + STRING + ")");
  private static final Pattern GROUPING =
      Pattern.compile("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
  private static final Pattern IDENTIFIER = Pattern.compile("(" + NAME + ")(\\s*\\()?");
  private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by",
      "without", "on", "ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN", "atan2");

  private PromQl() {}

  public static List<Selector> selectors(String expr) {
    List<Selector> found = new ArrayList<>();
    Matcher m = SELECTOR.matcher(expr);
    StringBuilder rest = new StringBuilder();
    while (m.find()) {
      found.add(selector(m.group(1), m.group(2)));
      m.appendReplacement(rest, " ");
    }
    m.appendTail(rest);
    if (rest.indexOf("{") >= 0) {
      throw new IllegalArgumentException("a selector without a metric name in: " + expr);
    }
    String remaining = GROUPING.matcher(rest).replaceAll(" ")
        .replaceAll(STRING, " ")
        .replaceAll("\\[[^]]*]", " ")           // ranges and subqueries
        .replaceAll("\\$\\{?\\w+}?", " ")        // Grafana variables
        .replaceAll("\\boffset\\s+-?[0-9a-z]+", " ")
        .replaceAll("\\b[0-9][0-9a-zA-Z.+-]*", " ");
    Matcher id = IDENTIFIER.matcher(remaining);
    while (id.find()) {
      boolean function = id.group(2) != null;
      if (!function && !KEYWORDS.contains(id.group(1))) {
        found.add(new Selector(id.group(1), Map.of(), Set.of()));
      }
    }
    return found;
  }

  /** The metric names an expression selects. */
  public static Set<String> metricNames(String expr) {
    Set<String> names = new LinkedHashSet<>();
    selectors(expr).forEach(s -> names.add(s.metric()));
    return names;
  }

  private static Selector selector(String metric, String matchers) {
    Map<String, String> equalTo = new LinkedHashMap<>();
    Set<String> labels = new LinkedHashSet<>();
    Matcher m = MATCHER.matcher(matchers);
    int matched = 0;
    while (m.find()) {
      labels.add(m.group(1));
      if (m.group(2).equals("=")) {
        String quoted = m.group(3);
        equalTo.put(m.group(1), quoted.substring(1, quoted.length() - 1));
      }
      matched++;
    }
    long expected = matchers.isBlank() ? 0 : matchers.split(",").length;
    if (matched != expected) {
      throw new IllegalArgumentException("cannot read the matchers of " + metric + "{" + matchers + "}");
    }
    return new Selector(metric, Map.copyOf(equalTo), Set.copyOf(labels));
  }
}
