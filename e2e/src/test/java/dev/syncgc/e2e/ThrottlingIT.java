package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ServiceAccounts;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Throttle;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.ServiceAccountBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With no client-side limit ({@code --kube-api-qps 0}), the API server's own limit: a FlowSchema
 * puts syncgc's ServiceAccount on a PriorityLevelConfiguration with a tiny share that rejects
 * (429) rather than queues. A cascade still completes in order, nothing is lost, and the 429s
 * show in {@code syncgc_api_requests_total}.
 */
@ExtendWith(TestNamespace.Extension.class)
class ThrottlingIT {
  private static final int MIDS = 15;
  private static final int LEAVES_PER_MID = 15;
  private static final Duration FINISH_DEADLINE = Duration.ofMinutes(5);

  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void underAPFRejectionsACascadeWithoutClientLimitCompletesInOrderAndCounts429s(TestNamespace ns)
      throws Exception {
    String identity = "syncgc-throttled";
    client.serviceAccounts().inNamespace(ns.name())
        .resource(new ServiceAccountBuilder().withNewMetadata().withName(identity).endMetadata().build()).create();
    ClusterRoleBinding admin = client.rbac().clusterRoleBindings().resource(new ClusterRoleBindingBuilder()
        .withNewMetadata().withName(ns.name() + "-" + identity).endMetadata()
        .withNewRoleRef().withApiGroup("rbac.authorization.k8s.io").withKind("ClusterRole")
        .withName("cluster-admin").endRoleRef()
        .addNewSubject().withKind("ServiceAccount").withName(identity).withNamespace(ns.name()).endSubject()
        .build()).create();
    Path kubeconfig = ServiceAccounts.kubeconfig(client, ns.name(), identity);
    Throttle throttle = null;
    SharedOperator.pause();
    OperatorProcess operator = OperatorProcess.start("throttled",
        List.of("--kube-api-qps", "0", "--namespaces", ns.name()), Map.of("KUBECONFIG", kubeconfig.toString()));
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      operator.awaitReady();
      GenericKubernetesResource root = Widgets.create(client, ns.name(), "root")
          .synchronous().annotate(TIMEOUT, "10m").applyAndAwaitFinalizer(ObjectAwaits.SETUP_DEADLINE);
      List<GenericKubernetesResource> tree = new ArrayList<>(List.of(root));
      for (int m = 0; m < MIDS; m++) {
        GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid-" + m).ownedBy(root).apply();
        tree.add(mid);
        for (int l = 0; l < LEAVES_PER_MID; l++) {
          tree.add(Widgets.create(client, ns.name(), "leaf-" + m + "-" + l).ownedBy(mid).apply());
        }
      }
      GenericKubernetesResource solid = Widgets.create(client, ns.name(), "solid").apply();
      GenericKubernetesResource shared = Widgets.create(client, ns.name(), "shared")
          .ownedBy(root).ownedBy(solid).apply();
      GenericKubernetesResource bystander = Widgets.create(client, ns.name(), "bystander").apply();

      throttle = Throttle.serviceAccount(client, ns.name(), ns.name(), identity);
      double before = throttled(operator);

      Widgets.widget(client, ns.name(), "root").delete();

      deletions.awaitDeleted(FINISH_DEADLINE, tree);
      assertTrue(deletions.problems().isEmpty(), deletions.problems().toString());
      List<String> order = deletions.names();
      assertEquals("root", order.get(order.size() - 1), "root deleted last: " + order);
      for (int m = 0; m < MIDS; m++) {
        for (int l = 0; l < LEAVES_PER_MID; l++) {
          deletions.assertBefore("leaf-" + m + "-" + l, "mid-" + m);
        }
      }
      for (HasMetadata kept : List.of(solid, shared, bystander)) {
        GenericKubernetesResource now = ObjectAwaits.current(client, kept);
        assertTrue(now != null && now.getMetadata().getDeletionTimestamp() == null,
            kept.getMetadata().getName() + " kept");
        assertFalse(deletions.find(kept).isPresent(), kept.getMetadata().getName() + " never deleted");
      }
      assertEquals(List.of(solid.getMetadata().getUid()), ObjectAwaits.current(client, shared).getMetadata()
          .getOwnerReferences().stream().map(OwnerReference::getUid).toList(),
          "shared keeps exactly its solid owner");
      for (String reason : List.of("SynchronousDeletionStarted", "SynchronousDeletionCompleted")) {
        Events.await(client, root, reason); // Events refused with 429 are sent again, not lost
      }
      double rejected = throttled(operator) - before;
      assertTrue(rejected > 0, "the API server answered 429 during the cascade; syncgc_api_requests_total"
          + " with code 429 grew by " + rejected + "\n" + Metrics.parse(operator.metrics())
              .lines("syncgc_api_requests_total"));
      System.out.printf("ThrottlingIT: %d objects deleted, %.0f requests answered 429%n", tree.size(), rejected);
    } finally {
      if (throttle != null) {
        throttle.close();
      }
      operator.stop();
      client.resource(admin).delete();
      SharedOperator.resume();
    }
  }

  private static double throttled(OperatorProcess operator) {
    return Metrics.parse(operator.metrics()).sum("syncgc_api_requests_total", Map.of("code", "429")).orElse(0);
  }
}
