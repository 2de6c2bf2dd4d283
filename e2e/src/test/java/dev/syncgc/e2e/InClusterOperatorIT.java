package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.InClusterOperator;
import dev.syncgc.e2e.support.LeaseReplicas;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator as users run it: the image built from the Dockerfile, installed by {@code helm install}
 * ({@code e2e/kind.sh up}), as a Pod on kind's real kubelet. Runs only in that mode
 * ({@code make test-kind}); elsewhere it fails at once rather than pass without having looked.
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class InClusterOperatorIT {
  /** After a kill the standby waits for the Lease to expire: {@link LeaseReplicas#LEASE_DURATION} here. */
  private static final Duration TAKEOVER_DEADLINE = Duration.ofSeconds(120);
  private static final int MIDS = 5;
  private static final int LEAVES_PER_MID = 20;

  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void inClusterOnly() {
    assertTrue(InClusterOperator.selected(), "InClusterOperatorIT checks the chart's in-cluster operator: "
        + "run it with make test-kind (SYNCGC_E2E_OPERATOR=chart and KUBECONFIG of e2e/kind.sh up)");
  }

  @Test
  void runsFromTheDockerfileImageAsNonRootOnAReadOnlyRootWithTheChartsServiceAccount() {
    InClusterOperator operator = (InClusterOperator) SharedOperator.get();
    List<Pod> pods = operator.pods();
    assertEquals(1, pods.size(), "one replica");
    Pod pod = pods.get(0);
    assertEquals("Running", pod.getStatus().getPhase());
    Container container = pod.getSpec().getContainers().get(0);
    assertEquals("syncgc/operator:dev", container.getImage(), "the image e2e/kind.sh built and loaded");
    assertEquals("syncgc", pod.getSpec().getServiceAccountName(), "the chart's ServiceAccount");
    assertTrue(container.getSecurityContext().getReadOnlyRootFilesystem(), "read-only root in the spec");
    assertTrue(pod.getStatus().getContainerStatuses().get(0).getReady(), "probes pass: Ready");

    String name = pod.getMetadata().getName();
    assertEquals("65532", exec(name, "id", "-u").stdout().strip(), "runs as the Dockerfile's non-root user");
    ProcessRunner.Result write = exec(name, "touch", "/app/written");
    assertFalse(write.ok(), "the root file system refuses writes");
    assertTrue(write.stderr().contains("Read-only file system"), write.describe());

    assertEquals(200, operator.status("/healthz"));
    assertEquals(200, operator.status("/readyz"));
    assertTrue(operator.metrics().contains("syncgc_graph_objects"), "metrics read through the Service");
  }

  /**
   * {@code helm test} as a user runs it after installing: the chart's test Pod, on the operator image,
   * sees an opted-in ConfigMap get the finalizer and a two-level cascade complete; a passed Pod and
   * its ConfigMaps are gone afterwards.
   */
  @Test
  void helmTestPassesAgainstTheInstalledOperatorAndLeavesNothing() {
    SharedOperator.get();
    ProcessRunner.Result test = ProcessRunner.helm(TestCluster.targetDir().resolve("helm-home"),
        Duration.ofMinutes(5), "test", InClusterOperator.DEPLOYMENT, "--namespace", InClusterOperator.NAMESPACE,
        "--timeout", "4m");
    String output = test.stdout() + test.stderr(); // helm prints the hook's log on stderr
    assertTrue(test.ok() && output.contains("PASS: syncgc finalized an opted-in object"), test.describe());
    assertEquals(null, client.pods().inNamespace(InClusterOperator.NAMESPACE)
        .withName(InClusterOperator.DEPLOYMENT + "-test").get(), "a passed test Pod is deleted");
    assertEquals(List.of(), client.configMaps().inNamespace(InClusterOperator.NAMESPACE)
        .withLabel("app.kubernetes.io/name", "syncgc-test").list().getItems(), "the test's ConfigMaps are gone");
  }

  @Test
  void withTwoReplicasTheStandbyPodFinishesADeletionWhenTheLeaderPodIsKilled(TestNamespace ns) {
    InClusterOperator operator = (InClusterOperator) SharedOperator.get();
    operator.upgrade("replicaCount=2", "kubeApi.qps=20", "kubeApi.burst=20",
        "leaderElection.leaseDuration=" + LeaseReplicas.LEASE_DURATION);
    try {
      String leader = awaitLeaderPod(operator, TAKEOVER_DEADLINE);
      GenericKubernetesResource root =
          Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
      Widgets.create(client, ns.name(), "bystander").synchronous().applyAndAwaitFinalizer();
      List<String> tree = new ArrayList<>(List.of("root"));
      for (int m = 0; m < MIDS; m++) {
        GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid-" + m).ownedBy(root).apply();
        tree.add("mid-" + m);
        for (int l = 0; l < LEAVES_PER_MID; l++) {
          Widgets.create(client, ns.name(), "leaf-" + m + "-" + l).ownedBy(mid).apply();
          tree.add("leaf-" + m + "-" + l);
        }
      }

      try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
        Widgets.widget(client, ns.name(), "root").delete();
        await("some dependents gone").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
            .until(() -> order.deletions().size() >= 5);
        operator.killPod(leader);
        assertTrue(order.deletions().size() < tree.size(), "the leader Pod was killed mid-deletion");
        assertNotNull(Widgets.widget(client, ns.name(), "root").get(), "the root is still there at the kill");

        String next = awaitLeaderPod(operator, TAKEOVER_DEADLINE);
        assertFalse(next.equals(leader), "another Pod leads");
        order.awaitDeleted(TAKEOVER_DEADLINE, tree.toArray(String[]::new));
        order.checkWatches();
        List<String> names = order.names();
        assertEquals(tree.size(), names.size(), "each object of the tree deleted once: " + order.deletions());
        assertEquals("root", names.get(names.size() - 1), "the root is deleted last: " + order.deletions());
      }
      GenericKubernetesResource bystander = Widgets.widget(client, ns.name(), "bystander").get();
      assertNotNull(bystander, "the bystander still exists");
      assertNull(bystander.getMetadata().getDeletionTimestamp(), "the bystander is not being deleted");
    } finally {
      operator.upgrade("replicaCount=1", "kubeApi.qps=200", "kubeApi.burst=400");
    }
  }

  /** The Pod whose name the chart's Lease holder identity starts with ({@code <hostname>-<pid>}). */
  private String awaitLeaderPod(InClusterOperator operator, Duration deadline) {
    List<String> holder = new ArrayList<>(List.of(""));
    await("a ready operator Pod holds the Lease").atMost(deadline).pollInterval(Duration.ofMillis(250))
        .until(() -> {
          Lease lease = client.leases().inNamespace(InClusterOperator.NAMESPACE)
              .withName(InClusterOperator.DEPLOYMENT).get();
          String identity = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
          return operator.pods().stream()
              .filter(p -> identity != null && identity.startsWith(p.getMetadata().getName() + "-"))
              .filter(p -> p.getStatus().getContainerStatuses().stream().allMatch(s -> Boolean.TRUE.equals(s.getReady())))
              .peek(p -> holder.set(0, p.getMetadata().getName()))
              .findFirst().isPresent();
        });
    return holder.get(0);
  }

  private static ProcessRunner.Result exec(String pod, String... command) {
    List<String> args = new ArrayList<>(List.of("-n", InClusterOperator.NAMESPACE, "exec", pod, "--"));
    args.addAll(List.of(command));
    return ProcessRunner.kubectl(Duration.ofSeconds(30), args.toArray(String[]::new));
  }
}
