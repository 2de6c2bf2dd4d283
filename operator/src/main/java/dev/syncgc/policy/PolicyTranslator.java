package dev.syncgc.policy;

import dev.syncgc.core.policy.Policy;
import dev.syncgc.core.policy.Selector;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.GoDuration;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Validates a GarbageCollectionPolicy and turns it into the core's {@link Policy}. */
public final class PolicyTranslator {
  private PolicyTranslator() {}

  /** Why a policy cannot be used, in words for its Ready condition. */
  public static final class InvalidPolicy extends Exception {
    private static final long serialVersionUID = 1L;

    InvalidPolicy(String message) {
      super(message);
    }
  }

  public static Policy translate(GarbageCollectionPolicy resource) throws InvalidPolicy {
    PolicySpec spec = resource.getSpec();
    if (spec == null) {
      throw new InvalidPolicy("spec is missing");
    }
    if (spec.getKinds() == null || spec.getKinds().isEmpty()) {
      throw new InvalidPolicy("spec.kinds must name at least one kind");
    }
    List<Policy.GroupKind> kinds = new ArrayList<>();
    for (PolicySpec.GroupKindSpec k : spec.getKinds()) {
      if (k.getKind() == null || k.getKind().isBlank()) {
        throw new InvalidPolicy("spec.kinds: every entry needs a kind (or \"*\")");
      }
      kinds.add(new Policy.GroupKind(k.getGroup() == null ? "" : k.getGroup(), k.getKind(),
          Optional.ofNullable(k.getDeletionWave())));
    }
    Propagation propagation = Propagation.parse(spec.getPropagation()).orElseThrow(() -> new InvalidPolicy(
        "spec.propagation '" + spec.getPropagation() + "' must be one of Synchronous, Orphan, Background"));
    Optional<Duration> timeout = Optional.empty();
    if (spec.getTimeout() != null) {
      try {
        timeout = Optional.of(GoDuration.parse(spec.getTimeout()));
      } catch (IllegalArgumentException e) {
        throw new InvalidPolicy("spec.timeout: " + e.getMessage());
      }
    }
    if (spec.getGracePeriodSeconds() != null && spec.getGracePeriodSeconds() < 0) {
      throw new InvalidPolicy("spec.gracePeriodSeconds must not be negative");
    }
    Optional<OnTimeout> onTimeout = Optional.empty();
    if (spec.getOnTimeout() != null) {
      onTimeout = Optional.of(OnTimeout.parse(spec.getOnTimeout()).orElseThrow(() -> new InvalidPolicy(
          "spec.onTimeout '" + spec.getOnTimeout() + "' must be Release or Keep")));
    }
    DeletionSettings settings = DeletionSettings.of(propagation, timeout,
        Optional.ofNullable(spec.getGracePeriodSeconds()), onTimeout);
    return new Policy(resource.getMetadata().getName(), spec.getPriority() == null ? 0 : spec.getPriority(),
        kinds, selector("spec.namespaceSelector", spec.getNamespaceSelector()),
        selector("spec.selector", spec.getSelector()), settings);
  }

  private static Selector selector(String field, LabelSelector selector) throws InvalidPolicy {
    if (selector == null) {
      return Selector.EVERYTHING;
    }
    try {
      List<Selector.Requirement> requirements = new ArrayList<>();
      if (selector.getMatchExpressions() != null) {
        for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
          requirements.add(new Selector.Requirement(r.getKey(), Selector.Operator.parse(r.getOperator()),
              new LinkedHashSet<>(r.getValues() == null ? List.of() : r.getValues())));
        }
      }
      Map<String, String> labels = selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
      return new Selector(labels, requirements);
    } catch (IllegalArgumentException e) {
      throw new InvalidPolicy(field + ": " + e.getMessage());
    }
  }
}
