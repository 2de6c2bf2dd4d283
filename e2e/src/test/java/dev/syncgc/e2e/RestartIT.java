package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.InClusterOperator;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Safety invariant 4: the operator can be killed at any instant; after a restart every deletion
 * finishes. On kind the chart's Pod is killed (deleted with no grace period) and the Deployment's new
 * Pod finishes the cascade.
 */
@ExtendWith(TestNamespace.Extension.class)
class RestartIT {
  private static final int MIDS = 10;
  private static final int LEAVES_PER_MID = 30;
  /** Leaves deleted before the kill: well into the cascade, far from its end. */
  private static final int LEAVES_BEFORE_KILL = 30;
  private static final Duration FINISH_DEADLINE = Duration.ofSeconds(180);

  private final KubernetesClient client = TestCluster.get().client();

  /** The operator this test kills: a JVM of its own, or the chart's Pod on kind. */
  private interface Killable {
    /** Kills it at once: SIGKILL of the JVM, or the Pod deleted with no grace period. */
    void kill();

    /** Runs again (a new JVM, or the Deployment's new Pod) and is ready. */
    void restart();

    /** Back to the suite's shared operator. */
    void close();
  }

  @Test
  void cascadeInterruptedBySigkillFinishesAfterRestartRootLastBystandersKept(TestNamespace ns) {
    // low QPS so that the cascade of ~300 DELETEs lasts several seconds
    Killable operator = InClusterOperator.selected() ? inClusterPod() : ownProcess();
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource root = Widgets.create(client, ns.name(), "root")
          .synchronous().annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
      List<GenericKubernetesResource> tree = new ArrayList<>(List.of(root));
      List<GenericKubernetesResource> leaves = new ArrayList<>();
      for (int m = 0; m < MIDS; m++) {
        GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid-" + m).ownedBy(root)
            .apply();
        tree.add(mid);
        for (int l = 0; l < LEAVES_PER_MID; l++) {
          GenericKubernetesResource leaf = Widgets.create(client, ns.name(), "leaf-" + m + "-" + l)
              .ownedBy(mid).apply();
          tree.add(leaf);
          leaves.add(leaf);
        }
      }
      GenericKubernetesResource bystander = Widgets.create(client, ns.name(), "bystander").apply();
      GenericKubernetesResource solid = Widgets.create(client, ns.name(), "solid").apply();
      GenericKubernetesResource ownedBySolid = Widgets.create(client, ns.name(), "owned-by-solid")
          .ownedBy(solid).apply();

      Widgets.widget(client, ns.name(), "root").delete();
      await(LEAVES_BEFORE_KILL + " leaves deleted").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> leaves.size() - deletions.missing(leaves).size() >= LEAVES_BEFORE_KILL);
      operator.kill();
      int goneAtKill = leaves.size() - deletions.missing(leaves).size();
      assertTrue(goneAtKill < leaves.size(), "killed in the middle: " + goneAtKill + " of "
          + leaves.size() + " leaves gone");
      assertTrue(ObjectAwaits.exists(client, root), "root still there at the kill");

      operator.restart();

      deletions.awaitDeleted(FINISH_DEADLINE, tree);
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
      List<String> order = deletions.names();
      assertEquals("root", order.get(order.size() - 1), "root deleted last");
      Map<String, Integer> position = new HashMap<>();
      for (int i = 0; i < order.size(); i++) {
        position.put(order.get(i), i);
      }
      for (int m = 0; m < MIDS; m++) {
        for (int l = 0; l < LEAVES_PER_MID; l++) {
          assertTrue(position.get("leaf-" + m + "-" + l) < position.get("mid-" + m),
              "leaf-" + m + "-" + l + " deleted before mid-" + m);
        }
      }
      for (HasMetadata kept : List.of(bystander, solid, ownedBySolid)) {
        GenericKubernetesResource now = ObjectAwaits.current(client, kept);
        assertTrue(now != null && now.getMetadata().getDeletionTimestamp() == null,
            kept.getMetadata().getName() + " kept");
      }
      assertEquals(List.of(solid.getMetadata().getUid()),
          ObjectAwaits.current(client, ownedBySolid).getMetadata().getOwnerReferences().stream()
              .map(r -> r.getUid()).collect(Collectors.toList()), "owned-by-solid keeps its owner");
      assertFalse(deletions.find(bystander).isPresent() || deletions.find(ownedBySolid).isPresent()
          || deletions.find(solid).isPresent(), "no bystander was ever deleted");
    } finally {
      operator.close();
    }
  }

  private static Killable ownProcess() {
    SharedOperator.pause();
    OperatorProcess process = OperatorProcess.startReady("restart", "--kube-api-qps", "20",
        "--kube-api-burst", "20");
    return new Killable() {
      @Override
      public void kill() {
        process.kill();
        assertFalse(process.isAlive(), "operator killed");
      }

      @Override
      public void restart() {
        process.start();
        process.awaitReady();
      }

      @Override
      public void close() {
        if (process.isAlive()) {
          process.stop();
        }
        SharedOperator.resume();
      }
    };
  }

  private static Killable inClusterPod() {
    InClusterOperator chart = (InClusterOperator) SharedOperator.get();
    chart.upgrade("kubeApi.qps=20", "kubeApi.burst=20");
    return new Killable() {
      @Override
      public void kill() {
        chart.killReadyPod();
      }

      @Override
      public void restart() {
        chart.scaleAndAwait(1);
      }

      @Override
      public void close() {
        chart.upgrade("kubeApi.qps=200", "kubeApi.burst=400");
      }
    };
  }
}
