package dev.syncgc.engine;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.policy.Policy;
import dev.syncgc.core.policy.PolicySet;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.policy.PolicyReconciler;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The policies in force and the effective settings of an object: its own annotations, then the
 * winning policy. A change of policies makes every object be looked at again.
 */
final class PolicyStore implements PolicyReconciler.Policies {
  private final AtomicReference<PolicySet> current = new AtomicReference<>(PolicySet.EMPTY);
  private final Function<String, Map<String, String>> namespaceLabels;
  private final Supplier<List<ObjectMetadata>> objects;
  private final Runnable changed;

  PolicyStore(Function<String, Map<String, String>> namespaceLabels, Supplier<List<ObjectMetadata>> objects,
      Runnable changed) {
    this.namespaceLabels = namespaceLabels;
    this.objects = objects;
    this.changed = changed;
  }

  boolean any() {
    return !current.get().policies().isEmpty();
  }

  DeletionSettings settingsOf(ObjectMetadata object) {
    DeletionSettings own = DeletionSettings.fromAnnotations(object.annotations());
    return decide(object).map(p -> own.orElse(p.settingsFor(object))).orElse(own);
  }

  private Optional<Policy> decide(ObjectMetadata object) {
    PolicySet set = current.get();
    if (set.policies().isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> labels = object.ref().namespaced() ? namespaceLabels.apply(object.ref().namespace()) : null;
    return set.decide(object, labels);
  }

  @Override
  public void put(Policy policy) {
    PolicySet before = current.getAndUpdate(s -> s.with(policy));
    if (!before.policies().contains(policy)) {
      changed.run();
    }
  }

  @Override
  public void remove(String name) {
    PolicySet before = current.getAndUpdate(s -> s.without(name));
    if (before.policies().stream().anyMatch(p -> p.name().equals(name))) {
      changed.run();
    }
  }

  /** Objects this policy decides for (no annotation of their own overrides the propagation). */
  @Override
  public long matchedBy(String name) {
    return objects.get().stream()
        .filter(o -> DeletionSettings.fromAnnotations(o.annotations()).propagation().isEmpty())
        .filter(o -> decide(o).map(p -> p.name().equals(name)).orElse(false))
        .count();
  }
}
