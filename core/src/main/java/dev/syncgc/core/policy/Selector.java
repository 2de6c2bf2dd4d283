package dev.syncgc.core.policy;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A Kubernetes label selector: matchLabels and matchExpressions, all of which must hold. The empty
 * selector matches everything; {@link #NOTHING} matches nothing.
 */
public record Selector(Map<String, String> matchLabels, List<Requirement> requirements) {
  public static final Selector EVERYTHING = new Selector(Map.of(), List.of());

  /** One matchExpression. */
  public record Requirement(String key, Operator operator, Set<String> values) {}

  public enum Operator {
    In, NotIn, Exists, DoesNotExist;

    /** @throws IllegalArgumentException naming the operator, if it is none of the four */
    public static Operator parse(String value) {
      for (Operator o : values()) {
        if (o.name().equals(value)) {
          return o;
        }
      }
      throw new IllegalArgumentException("unknown selector operator '" + value
          + "'; use In, NotIn, Exists or DoesNotExist");
    }
  }

  public Selector {
    matchLabels = Map.copyOf(matchLabels);
    requirements = List.copyOf(requirements);
    for (Requirement r : requirements) {
      boolean needsValues = r.operator() == Operator.In || r.operator() == Operator.NotIn;
      if (needsValues == r.values().isEmpty()) {
        throw new IllegalArgumentException("selector operator " + r.operator() + " on '" + r.key()
            + "' " + (needsValues ? "needs values" : "takes no values"));
      }
    }
  }

  public boolean matches(Map<String, String> labels) {
    for (Map.Entry<String, String> e : matchLabels.entrySet()) {
      if (!e.getValue().equals(labels.get(e.getKey()))) {
        return false;
      }
    }
    for (Requirement r : requirements) {
      String value = labels.get(r.key());
      boolean ok = switch (r.operator()) {
        case In -> value != null && r.values().contains(value);
        case NotIn -> value == null || !r.values().contains(value);
        case Exists -> value != null;
        case DoesNotExist -> value == null;
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}
