package dev.syncgc.policy;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.policy.Policy;
import dev.syncgc.core.policy.PolicySet;
import dev.syncgc.core.settings.DeletionSettings;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The policies in force and the effective settings of an object: its own annotations, then the
 * winning policy. A change of policies makes every object be looked at again.
 */
public final class PolicyStore implements Policies {
  private final AtomicReference<PolicySet> current = new AtomicReference<>(PolicySet.EMPTY);
  private final Function<String, Map<String, String>> namespaceLabels;
  private final Supplier<List<ObjectMetadata>> objects;
  private final Runnable changed;
  private final LongSupplier nanoTime = System::nanoTime;
  private final AtomicReference<Counts> matched = new AtomicReference<>();
  private static final Duration COUNTS_MAX_AGE = Duration.ofSeconds(5);

  public PolicyStore(Function<String, Map<String, String>> namespaceLabels, Supplier<List<ObjectMetadata>> objects,
      Runnable changed) {
    this.namespaceLabels = namespaceLabels;
    this.objects = objects;
    this.changed = changed;
  }

  public boolean any() {
    return !current.get().policies().isEmpty();
  }

  public DeletionSettings settingsOf(ObjectMetadata object) {
    DeletionSettings own = DeletionSettings.fromAnnotations(object.annotations());
    return decide(object).map(p -> own.orElse(p.settingsFor(object))).orElse(own);
  }

  /** The name of the policy deciding for the object (the highest priority, then the first name), if any. */
  public Optional<String> deciding(ObjectMetadata object) {
    return decide(object).map(Policy::name);
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

  /**
   * Puts exactly {@code policies} in force: those not among them are no longer in force (a merge
   * would keep a policy deleted since).
   */
  @Override
  public void replaceAll(Collection<Policy> policies) {
    PolicySet next = new PolicySet(policies);
    PolicySet before = current.getAndSet(next);
    if (!before.policies().equals(next.policies())) {
      changed.run();
    }
  }

  /**
   * Objects this policy decides for (no annotation of their own overrides the propagation). One pass
   * over the graph counts for every policy at once; the counts are reused for a few seconds, so
   * the reconciler's periodic status refresh costs one pass, not one per policy.
   */
  @Override
  public long matchedBy(String name) {
    Counts counts = matched.get();
    long now = nanoTime.getAsLong();
    if (counts == null || !counts.set.policies().equals(current.get().policies())
        || now - counts.atNanos > COUNTS_MAX_AGE.toNanos()) {
      counts = count(now);
      matched.set(counts);
    }
    return counts.byPolicy.getOrDefault(name, 0L);
  }

  private Counts count(long now) {
    PolicySet set = current.get();
    Map<String, Long> byPolicy = new HashMap<>();
    if (!set.policies().isEmpty()) {
      for (ObjectMetadata o : objects.get()) {
        if (DeletionSettings.fromAnnotations(o.annotations()).propagation().isEmpty()) {
          decide(o).ifPresent(p -> byPolicy.merge(p.name(), 1L, Long::sum));
        }
      }
    }
    return new Counts(set, now, byPolicy);
  }

  private record Counts(PolicySet set, long atNanos, Map<String, Long> byPolicy) {}
}
