package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.e2e.support.Finalizers;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A dependent that another, solid owner keeps is not deleted with the owner being deleted. */
@ExtendWith(TestNamespace.Extension.class)
class SolidOwnerIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operator() {
    SharedOperator.get();
  }

  @Test
  void dependentWithSecondSolidOwnerSurvivesWithOnlyDeletedOwnersReferenceRemoved(TestNamespace ns) {
    Widgets.create(client, ns.name(), "deleted-owner")
        .annotate("syncgc.dev/propagation", "Synchronous").apply();
    GenericKubernetesResource deletedOwner =
        Finalizers.awaitSyncgc(() -> Widgets.widget(client, ns.name(), "deleted-owner").get());
    GenericKubernetesResource solidOwner = Widgets.create(client, ns.name(), "solid-owner").apply();
    OwnerReference toSolid = Widgets.ownerReference(solidOwner, true, false);
    GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "dependent")
        .ownedBy(deletedOwner).ownedBy(toSolid).apply();

    Widgets.widget(client, ns.name(), "deleted-owner").delete();

    await("deleted-owner gone").atMost(DEADLINE)
        .until(() -> Widgets.widget(client, ns.name(), "deleted-owner").get() == null);
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
