package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.SYNCHRONOUS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionWatch;
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
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The race of the synchronous-GC proposal ("unhandled case"): a dependent created just before its
 * owner's deletion, which the collector may not have seen yet when the owner's deletion is handled,
 * must still be deleted before the owner.
 */
@ExtendWith(TestNamespace.Extension.class)
class RaceIT {
  private static final int ROUNDS = 50;
  private static final Duration ROUND_DEADLINE = Duration.ofSeconds(30);

  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operator() {
    SharedOperator.get();
  }

  /**
   * Half of the dependents are Widgets (same kind as the owner: one watch orders them), half are
   * ConfigMaps (another kind, watched separately by the operator: only its freshness check can
   * catch one it has not seen yet). Orders are compared by the resourceVersion of the DELETED
   * events, which is the deletion's etcd revision.
   */
  @Test
  void dependentCreatedJustBeforeOwnerDeletionIsAlwaysDeletedBeforeTheOwner(TestNamespace ns) {
    List<String> violations = new ArrayList<>();
    try (DeletionWatch deletions = DeletionWatch.widgets(client, ns.name()).add("v1", "ConfigMap")) {
      for (int round = 0; round < ROUNDS; round++) {
        GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner-" + round)
            .annotate(PROPAGATION, SYNCHRONOUS).finalizer(FINALIZER).apply();
        HasMetadata dependent = round % 2 == 0
            ? Widgets.create(client, ns.name(), "dependent-" + round).ownedBy(owner).apply()
            : client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
                .withNewMetadata().withName("dependent-" + round)
                    .withOwnerReferences(Widgets.ownerReference(owner)).endMetadata()
                .addToData("round", String.valueOf(round)).build()).create();
        Widgets.widget(client, ns.name(), owner.getMetadata().getName()).delete();

        long ownerGone = deletions.awaitDeleted(owner, ROUND_DEADLINE).resourceVersion();
        DeletionWatch.Deletion dependentGone = deletions.awaitDeleted(dependent, ROUND_DEADLINE);
        if (dependentGone.resourceVersion() >= ownerGone) {
          violations.add("round " + round + " (" + dependent.getKind() + "): owner deleted at "
              + ownerGone + ", dependent at " + dependentGone.resourceVersion());
        }
      }
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
      assertEquals(List.of(), violations, "dependent deleted before its owner in every round");
      // within one kind the watch order must agree with the revisions
      List<DeletionWatch.Deletion> widgets = deletions.deletions().stream()
          .filter(d -> d.kind().equals("Widget")).toList();
      for (int i = 1; i < widgets.size(); i++) {
        assertTrue(widgets.get(i - 1).resourceVersion() < widgets.get(i).resourceVersion(),
            "watch order and revisions agree: " + widgets);
      }
    }
  }
}
