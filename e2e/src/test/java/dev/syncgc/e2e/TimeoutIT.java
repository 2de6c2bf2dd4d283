package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every synchronous deletion has a deadline: a block that can never clear is broken when it passes. */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class TimeoutIT {
  private static final String NEVER = "example.com/never";

  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void ownerBlockedForeverIsReleasedAtItsTimeoutWithEventNamingTheBlockerAndWhy(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner")
        .synchronous().annotate(TIMEOUT, "5s").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    GenericKubernetesResource blocker = Widgets.create(client, ns.name(), "blocker").ownedBy(owner)
        .finalizer(NEVER).apply();
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      Instant deleteSent = Instant.now();
      Widgets.widget(client, ns.name(), "owner").delete();

      Instant ownerGone = deletions.awaitDeleted(Duration.ofSeconds(60), owner).receivedAt();

      // the deadline counts from the deletionTimestamp, which the API server rounds down to the second
      Duration took = Duration.between(deleteSent, ownerGone);
      assertTrue(took.compareTo(Duration.ofSeconds(4)) >= 0,
          "owner held until its 5 s timeout, released after " + took);
      assertTrue(took.compareTo(Duration.ofSeconds(25)) < 0,
          "owner released soon after its 5 s timeout, not " + took);
      GenericKubernetesResource left = ObjectAwaits.current(client, blocker);
      assertNotNull(left, "the blocker is still there, held by " + NEVER);
      Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut",
          "Widget/" + ns.name() + "/blocker", NEVER);
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);
    }
  }

  /**
   * SPEC: after the deadline the remaining dependents are still deleted. A ring the cascade had not
   * reached yet (its wave waits behind a dependent held forever) must go too: the built-in
   * collector, which takes over the rest, never deletes a ring (found by the soak, seed
   * 6642706479115075841 round 44).
   */
  @Test
  void aRingNotYetReachedAtTheDeadlineIsStillDeletedAfterTheOwnerIsReleased(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner")
        .synchronous().annotate(TIMEOUT, "3s").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    Widgets.create(client, ns.name(), "first").ownedBy(owner).annotate("syncgc.dev/deletion-wave", "1")
        .finalizer(NEVER).apply();
    GenericKubernetesResource r1 = Widgets.create(client, ns.name(), "r1").ownedBy(owner).apply();
    GenericKubernetesResource r2 = Widgets.create(client, ns.name(), "r2").ownedBy(r1).apply();
    Widgets.widget(client, ns.name(), "r1").edit(w -> {
      w.getMetadata().getOwnerReferences().add(Widgets.ownerReference(r2));
      return w;
    });
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "owner").delete();

      deletions.awaitDeleted(Duration.ofSeconds(60), List.of(owner, r1, r2));
      assertNotNull(Widgets.widget(client, ns.name(), "first").get(), "the held dependent is still held");
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "first"), NEVER);
    }
  }
}
