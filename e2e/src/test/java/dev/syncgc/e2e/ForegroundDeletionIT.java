package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What Argo CD's default does (it prunes and deletes an Application's resources with foreground
 * propagation, docs/gitops.md): the built-in collector deletes the dependents at once, in its order
 * (the dependents that block the owner's deletion before the owner, a blocking dependent's own
 * dependents before it), while syncgc's cascade of the same owner runs beside it. Neither waits for
 * the other, so nothing syncgc promises beyond the collector holds for sure: a kept dependent survives
 * only if syncgc removed its reference before the collector deleted it (in runs here syncgc was first;
 * the collector may be). What is guaranteed either way is checked: everything else goes, in the
 * collector's order, and a kept dependent that survives no longer names the deleted owner.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class ForegroundDeletionIT {
  private static final Duration BUILT_IN_GC_DEADLINE = Duration.ofSeconds(120);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void aForegroundDeletionOfASynchronousOwnerIsTheCollectorsAndKeepsNothing(TestNamespace ns) {
    BuiltInCollector.assumeRunning("a foreground deletion's foregroundDeletion finalizer is removed only by the"
        + " collector");
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "app").synchronous()
        .applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
    GenericKubernetesResource kept = Widgets.create(client, ns.name(), "data").annotate("syncgc.dev/keep", "true")
        .ownedBy(owner, true, false).apply();
    GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid").ownedBy(owner, true, true).apply();
    GenericKubernetesResource leaf = Widgets.create(client, ns.name(), "leaf").ownedBy(mid, true, true).apply();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      ProcessRunner.kubectl(BUILT_IN_GC_DEADLINE.plusSeconds(30), "delete", "widgets.test.syncgc.dev", "app", "-n",
          ns.name(), "--cascade=foreground", "--timeout=" + BUILT_IN_GC_DEADLINE.toSeconds() + "s").assertOk();
      order.awaitDeleted(BUILT_IN_GC_DEADLINE, List.of(owner, mid, leaf));

      long ownerGone = order.find(owner).orElseThrow().resourceVersion();
      for (GenericKubernetesResource d : List.of(mid, leaf)) {
        long gone = order.find(d).orElseThrow().resourceVersion();
        assertTrue(gone < ownerGone, d.getMetadata().getName() + " (etcd revision " + gone
            + ") must go before the owner (" + ownerGone + ") in a foreground deletion: " + order.deletions());
      }
      assertTrue(order.find(leaf).orElseThrow().resourceVersion() < order.find(mid).orElseThrow().resourceVersion(),
          "mid goes only after its blocking dependent leaf: " + order.deletions());
      GenericKubernetesResource survivor = TestCrds.widgets(client).inNamespace(ns.name()).withName("data").get();
      if (survivor == null) {
        assertTrue(order.find(kept).orElseThrow().resourceVersion() < ownerGone,
            "the kept dependent, deleted by the collector, went before the owner: " + order.deletions());
      } else {
        assertTrue(survivor.getMetadata().getOwnerReferences().stream()
            .noneMatch(r -> r.getUid().equals(owner.getMetadata().getUid())),
            "a kept dependent that survived names the deleted owner no more: " + survivor.getMetadata());
      }
      System.out.println("foreground deletion: " + order.deletions() + "; the kept dependent "
          + (survivor == null ? "was deleted by the collector" : "survived (syncgc removed its reference first)"));
    }
  }
}
