package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The race of the synchronous-GC proposal ("unhandled case"): a dependent created just before its
 * owner's deletion, which the collector may not have seen yet when the owner's deletion is handled,
 * must still be deleted before the owner.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class RaceIT {
  private static final int ROUNDS = 50;
  private static final Duration ROUND_DEADLINE = Duration.ofSeconds(30);

  private final KubernetesClient client = TestCluster.get().client();

  /**
   * Half of the dependents are Widgets (same kind as the owner: one watch orders them), half are
   * ConfigMaps (another kind, watched separately by the operator: only its freshness check can
   * catch one it has not seen yet). Orders are compared by the resourceVersion of the DELETED
   * events, which is the deletion's etcd revision.
   */
  @Test
  void dependentCreatedJustBeforeOwnerDeletionIsAlwaysDeletedBeforeTheOwner(TestNamespace ns) {
    List<String> violations = new ArrayList<>();
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())
        .watch(client.configMaps().inNamespace(ns.name()))) {
      for (int round = 0; round < ROUNDS; round++) {
        GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner-" + round)
            .synchronous().finalizer(FINALIZER).apply();
        HasMetadata dependent = round % 2 == 0
            ? Widgets.create(client, ns.name(), "dependent-" + round).ownedBy(owner).apply()
            : client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
                .withNewMetadata().withName("dependent-" + round)
                    .withOwnerReferences(Widgets.ownerReference(owner)).endMetadata()
                .addToData("round", String.valueOf(round)).build()).create();
        Widgets.widget(client, ns.name(), owner.getMetadata().getName()).delete();

        long ownerGone = deletions.awaitDeleted(ROUND_DEADLINE, owner).resourceVersion();
        DeletionOrder.Deletion dependentGone = deletions.awaitDeleted(ROUND_DEADLINE, dependent);
        if (dependentGone.resourceVersion() >= ownerGone) {
          violations.add("round " + round + " (" + dependent.getKind() + "): owner deleted at "
              + ownerGone + ", dependent at " + dependentGone.resourceVersion());
        }
      }
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
      assertEquals(List.of(), violations, "dependent deleted before its owner in every round");
      // within one kind the watch order must agree with the revisions
      List<DeletionOrder.Deletion> widgets = deletions.arrivals().stream()
          .filter(d -> d.kind().equals("Widget")).toList();
      for (int i = 1; i < widgets.size(); i++) {
        assertTrue(widgets.get(i - 1).resourceVersion() < widgets.get(i).resourceVersion(),
            "watch order and revisions agree: " + widgets);
      }
    }
  }
}
