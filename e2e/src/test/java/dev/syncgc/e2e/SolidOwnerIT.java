package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A dependent that another, solid owner keeps is not deleted with the owner being deleted. */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class SolidOwnerIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void dependentWithSecondSolidOwnerSurvivesWithOnlyDeletedOwnersReferenceRemovedBeforeOwnerIsGone(
      TestNamespace ns) {
    GenericKubernetesResource deletedOwner =
        Widgets.create(client, ns.name(), "deleted-owner").synchronous().applyAndAwaitFinalizer();
    GenericKubernetesResource solidOwner = Widgets.create(client, ns.name(), "solid-owner").apply();
    OwnerReference toSolid = Widgets.ownerReference(solidOwner, true, false);
    GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "dependent")
        .ownedBy(deletedOwner).ownedBy(toSolid).apply();

    // resourceVersions (store order) of the reference's removal and of the owner's disappearance
    AtomicLong referenceRemovedAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong ownerDeletedAt = new AtomicLong(Long.MAX_VALUE);
    AtomicReference<String> watchProblem = new AtomicReference<>();
    var widgets = TestCrds.widgets(client).inNamespace(ns.name());
    String from = widgets.list(new ListOptionsBuilder().withLimit(1L).build()).getMetadata()
        .getResourceVersion();
    try (Watch watch = widgets.watch(new ListOptionsBuilder().withResourceVersion(from).build(),
        new Watcher<GenericKubernetesResource>() {
          @Override
          public void eventReceived(Action action, GenericKubernetesResource o) {
            long rv = Long.parseLong(o.getMetadata().getResourceVersion());
            String uid = o.getMetadata().getUid();
            if (action == Action.DELETED && uid.equals(deletedOwner.getMetadata().getUid())) {
              ownerDeletedAt.accumulateAndGet(rv, Math::min);
            } else if (uid.equals(dependent.getMetadata().getUid()) && o.getMetadata().getOwnerReferences()
                .stream().noneMatch(r -> r.getUid().equals(deletedOwner.getMetadata().getUid()))) {
              referenceRemovedAt.accumulateAndGet(rv, Math::min);
            }
          }

          @Override
          public void onClose(WatcherException cause) {
            watchProblem.set(cause.toString());
          }
        })) {
      Widgets.widget(client, ns.name(), "deleted-owner").delete();

      await("deleted-owner gone and seen by the watch").atMost(DEADLINE)
          .until(() -> ownerDeletedAt.get() != Long.MAX_VALUE);
      await("reference removal seen by the watch").atMost(DEADLINE)
          .until(() -> referenceRemovedAt.get() != Long.MAX_VALUE);
      assertNull(watchProblem.get(), "watch failed, events may be missing");
      assertTrue(referenceRemovedAt.get() < ownerDeletedAt.get(),
          "the reference is removed while the owner waits (resourceVersion " + referenceRemovedAt
              + "), before the owner is gone (" + ownerDeletedAt + ")");
    }
    assertNull(Widgets.widget(client, ns.name(), "deleted-owner").get(), "deleted-owner gone");
    GenericKubernetesResource survivor = Widgets.widget(client, ns.name(), "dependent").get();
    assertNotNull(survivor, "the dependent survives");
    assertEquals(dependent.getMetadata().getUid(), survivor.getMetadata().getUid(), "the same object");
    assertNull(survivor.getMetadata().getDeletionTimestamp(), "the dependent is not being deleted");
    assertEquals(List.of(toSolid), survivor.getMetadata().getOwnerReferences(),
        "only the reference to the deleted owner is removed; the other is intact");
    GenericKubernetesResource solid = Widgets.widget(client, ns.name(), "solid-owner").get();
    assertNotNull(solid, "the solid owner is untouched");
    assertNull(solid.getMetadata().getDeletionTimestamp(), "the solid owner is not being deleted");
  }
}
