package dev.syncgc.policy;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.policy.Policy;
import dev.syncgc.core.policy.Selector;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.InvalidSetting;
import dev.syncgc.core.settings.Setting;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
    DeletionSettings settings = settings(spec);
    return new Policy(resource.getMetadata().getName(), spec.getPriority() == null ? 0 : spec.getPriority(),
        kinds, selector("spec.namespaceSelector", spec.getNamespaceSelector()),
        selector("spec.selector", spec.getSelector()), settings);
  }

  /**
   * The policy's settings, validated by the same rules (and in the same words) as the annotations
   * they stand in for: {@link DeletionSettings#fromAnnotations}. The propagation is required unless the
   * policy keeps what it matches (SPEC "Keep one dependent"): such a policy need not opt anything in.
   */
  private static DeletionSettings settings(PolicySpec spec) throws InvalidPolicy {
    Map<String, String> values = new LinkedHashMap<>();
    if (spec.getPropagation() != null) {
      values.put(Names.PROPAGATION, spec.getPropagation());
    } else if (!Boolean.TRUE.equals(spec.getKeep())) {
      throw new InvalidPolicy("spec.propagation is required unless spec.keep is true");
    }
    if (spec.getTimeout() != null) {
      values.put(Names.TIMEOUT, spec.getTimeout());
    }
    if (spec.getGracePeriodSeconds() != null) {
      values.put(Names.GRACE_PERIOD, spec.getGracePeriodSeconds().toString());
    }
    if (spec.getOnTimeout() != null) {
      values.put(Names.ON_TIMEOUT, spec.getOnTimeout());
    }
    if (spec.getUsersFrom() != null) {
      for (String entry : spec.getUsersFrom()) {
        if (entry == null || entry.contains(",")) {
          throw new InvalidPolicy("spec.usersFrom '" + entry + "' is no namespace name: one namespace per entry");
        }
      }
      values.put(Names.USERS_FROM, String.join(",", spec.getUsersFrom()));
    }
    if (spec.getKeep() != null) {
      values.put(Names.KEEP, spec.getKeep().toString());
    }
    DeletionSettings parsed = DeletionSettings.fromAnnotations(values);
    for (InvalidSetting i : parsed.invalid()) {
      Setting<?> setting = Setting.ALL.stream().filter(x -> x.annotation().equals(i.annotation())).findFirst()
          .orElseThrow();
      throw new InvalidPolicy("spec." + setting.policyField() + " '" + i.value() + "' " + i.reason());
    }
    return parsed;
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
