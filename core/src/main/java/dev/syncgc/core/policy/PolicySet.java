package dev.syncgc.core.policy;

import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The valid policies in force, in precedence order; immutable. */
public final class PolicySet {
  public static final PolicySet EMPTY = new PolicySet(List.of());

  private final List<Policy> ordered;

  public PolicySet(Collection<Policy> policies) {
    List<Policy> sorted = new ArrayList<>(policies);
    sorted.sort(Policy.PRECEDENCE);
    this.ordered = List.copyOf(sorted);
  }

  /** The policy that decides for this object, if any matches. */
  public Optional<Policy> decide(ObjectMetadata object, Map<String, String> namespaceLabels) {
    for (Policy p : ordered) {
      if (p.matches(object, namespaceLabels)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  public PolicySet with(Policy policy) {
    List<Policy> next = new ArrayList<>(ordered);
    next.removeIf(p -> p.name().equals(policy.name()));
    next.add(policy);
    return new PolicySet(next);
  }

  public PolicySet without(String name) {
    List<Policy> next = new ArrayList<>(ordered);
    next.removeIf(p -> p.name().equals(name));
    return new PolicySet(next);
  }

  public List<Policy> policies() {
    return ordered;
  }
}
