package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.LeaseReplicas;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two operators with {@code --leader-election} on one Lease: only the holder acts, and when it is
 * killed in the middle of a synchronous deletion the standby takes the Lease over (once it has
 * expired) and finishes the deletion. The shared operator is paused meanwhile.
 */
@ExtendWith(TestNamespace.Extension.class)
class LeaderElectionIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** After SIGKILL the Lease must expire before the standby may take it ({@link LeaseReplicas#LEASE_DURATION}). */
  private static final Duration TAKEOVER_DEADLINE = Duration.ofSeconds(90);
  private static final int MIDS = 10;
  private static final int LEAVES_PER_MID = 20;

  private final KubernetesClient client = TestCluster.get().client();
  private LeaseReplicas replicas;

  @BeforeEach
  void startTwoOperators() {
    replicas = LeaseReplicas.start(client, "leader-election", "--kube-api-qps", "20", "--kube-api-burst", "20");
  }

  @AfterEach
  void stopOperators() {
    replicas.close();
  }

  @Test
  void onlyTheLeaseHolderAddsTheFinalizer(TestNamespace ns) {
    OperatorProcess leader = replicas.awaitHolder(DEADLINE);
    OperatorProcess standby = replicas.other(leader);

    GenericKubernetesResource annotated =
        Widgets.create(client, ns.name(), "annotated").synchronous().applyAndAwaitFinalizer();

    leader.awaitLog("added finalizer object=Widget/" + ns.name() + "/annotated uid="
        + annotated.getMetadata().getUid());
    assertFalse(standby.log().contains("added finalizer"),
        "the standby added no finalizer; its log:\n" + standby.log());
    assertEquals(leader.leaderElectionIdentity(), replicas.holder(), "the leader still holds the Lease");
  }

  @Test
  void standbyTakesOverWhenTheLeaderIsKilledMidDeletionAndFinishesTheTreeRootLastSparingTheBystander(
      TestNamespace ns) throws Exception {
    OperatorProcess leader = replicas.awaitHolder(DEADLINE);
    OperatorProcess standby = replicas.other(leader);

    GenericKubernetesResource root =
        Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "bystander").synchronous().applyAndAwaitFinalizer();
    List<String> tree = createTree(ns, root);
    await("the tree and the bystander listed").atMost(DEADLINE).until(() ->
        TestCrds.widgets(client).inNamespace(ns.name()).list().getItems().size() == tree.size() + 1);

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "root").delete();
      await("some dependents gone").atMost(DEADLINE).pollInterval(Duration.ofMillis(50))
          .until(() -> order.deletions().size() >= 5);

      leader.kill();
      int deletedAtKill = order.deletions().size();
      Instant end = Instant.now().plus(TAKEOVER_DEADLINE);
      assertTrue(deletedAtKill < tree.size(),
          "the leader was killed in the middle of the deletion, not after it: " + deletedAtKill + " gone");
      assertNotNull(Widgets.widget(client, ns.name(), "root").get(), "the root is still there at the kill");

      replicas.awaitHolderIs(standby, Duration.between(Instant.now(), end));
      order.awaitDeleted(Duration.between(Instant.now(), end), tree.toArray(String[]::new));
      order.checkWatches();
      List<String> names = order.names();
      assertEquals(tree.size(), names.size(), "each object of the tree deleted once: " + order.deletions());
      assertEquals("root", names.get(names.size() - 1), "the root is deleted last: " + order.deletions());
      assertFalse(names.contains("bystander"), "the bystander was not deleted: " + order.deletions());
    }
    GenericKubernetesResource bystander = Widgets.widget(client, ns.name(), "bystander").get();
    assertNotNull(bystander, "the bystander still exists");
    assertNull(bystander.getMetadata().getDeletionTimestamp(), "the bystander is not being deleted");
    assertNull(Widgets.widget(client, ns.name(), "root").get(), "the root is gone");
  }

  // --- helpers

  /** Creates root's tree: {@value #MIDS} mids, each owning {@value #LEAVES_PER_MID} leaves. Returns every name. */
  private List<String> createTree(TestNamespace ns, GenericKubernetesResource root) throws Exception {
    List<String> names = new ArrayList<>(List.of("root"));
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<GenericKubernetesResource>> mids = new ArrayList<>();
      for (int m = 0; m < MIDS; m++) {
        String mid = String.format("mid-%02d", m);
        names.add(mid);
        mids.add(pool.submit(() -> Widgets.create(client, ns.name(), mid).ownedBy(root).apply()));
      }
      List<Future<?>> leaves = new ArrayList<>();
      for (Future<GenericKubernetesResource> f : mids) {
        GenericKubernetesResource mid = f.get();
        for (int l = 0; l < LEAVES_PER_MID; l++) {
          String leaf = String.format("%s-leaf-%02d", mid.getMetadata().getName(), l);
          names.add(leaf);
          leaves.add(pool.submit(() -> Widgets.create(client, ns.name(), leaf).ownedBy(mid).apply()));
        }
      }
      for (Future<?> f : leaves) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return names;
  }
}
