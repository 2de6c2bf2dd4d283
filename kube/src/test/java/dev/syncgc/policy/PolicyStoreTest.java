package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.policy.Policy;
import dev.syncgc.core.policy.Selector;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The store's content as a replica that starts leading replaces it: exactly the policies of one LIST. */
class PolicyStoreTest {
  private static final ObjectMetadata WIDGET = new ObjectMetadata(
      new ObjectRef("example.com/v1", "Widget", "default", "w", "uid-w"), 1, List.of(), List.of(), null, null,
      Map.of(), Map.of());

  private final AtomicInteger changes = new AtomicInteger();
  private final PolicyStore store = new PolicyStore(ns -> Map.of(), List::of, changes::incrementAndGet);

  private static Policy policy(String name, int priority, Propagation propagation) {
    return new Policy(name, priority, List.of(new Policy.GroupKind("example.com", "Widget")), Selector.EVERYTHING,
        Selector.EVERYTHING, DeletionSettings.NONE.with(Setting.PROPAGATION, propagation));
  }

  private Optional<Propagation> propagation() {
    return store.settingsOf(WIDGET).propagation();
  }

  @Test
  void aPolicyMissingFromTheReplacementIsNoLongerInForce() {
    store.put(policy("sync", 10, Propagation.SYNCHRONOUS));
    store.put(policy("orphan", 0, Propagation.ORPHAN));
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), propagation());

    store.replaceAll(List.of(policy("orphan", 0, Propagation.ORPHAN)));

    assertEquals(Optional.of(Propagation.ORPHAN), propagation());
    assertEquals(Optional.of("orphan"), store.deciding(WIDGET));
  }

  @Test
  void aChangedPolicyReplacesTheOneOfTheSameName() {
    store.put(policy("p", 0, Propagation.SYNCHRONOUS));

    store.replaceAll(List.of(policy("p", 0, Propagation.ORPHAN)));

    assertEquals(Optional.of(Propagation.ORPHAN), propagation());
  }

  @Test
  void replacingWithNoPolicyLeavesNoneInForce() {
    store.put(policy("p", 0, Propagation.SYNCHRONOUS));

    store.replaceAll(List.of());

    assertFalse(store.any());
    assertEquals(Optional.empty(), propagation());
    assertEquals(Optional.empty(), store.deciding(WIDGET));
  }

  @Test
  void objectsAreLookedAtAgainOnlyWhenTheReplacementChangesSomething() {
    store.put(policy("a", 0, Propagation.SYNCHRONOUS));
    store.put(policy("b", 1, Propagation.ORPHAN));
    int before = changes.get();

    store.replaceAll(List.of(policy("b", 1, Propagation.ORPHAN), policy("a", 0, Propagation.SYNCHRONOUS)));
    assertEquals(before, changes.get(), "the same policies, in another order: no change");

    store.replaceAll(List.of(policy("b", 1, Propagation.ORPHAN)));
    assertEquals(before + 1, changes.get(), "one policy gone: one change");
  }
}
