package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Finalizers;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The grace period of the owner's annotation is passed on the cascade's DELETE of a Pod, and the
 * owner waits for the Pod's graceful termination.
 */
@ExtendWith(TestNamespace.Extension.class)
class PodGracePeriodIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operator() {
    SharedOperator.get();
  }

  @Test
  void podDependentIsDeletedWithOwnersGracePeriodWhileOwnerWaits(TestNamespace ns) {
    Widgets.create(client, ns.name(), "owner")
        .annotate("syncgc.dev/propagation", "Synchronous")
        .annotate("syncgc.dev/grace-period-seconds", "8")
        .apply();
    GenericKubernetesResource owner =
        Finalizers.awaitSyncgc(() -> Widgets.widget(client, ns.name(), "owner").get());
    Namespaces.awaitDefaultServiceAccount(client, ns.name());
    var pods = client.pods().inNamespace(ns.name());
    pods.resource(new PodBuilder()
        .withNewMetadata().withName("pod").withOwnerReferences(Widgets.ownerReference(owner)).endMetadata()
        .withNewSpec()
            .withNodeName(TestCluster.get().nodeName())
            .withAutomountServiceAccountToken(false)
            .withTerminationGracePeriodSeconds(30L)
            .addNewContainer().withName("pause").withImage("registry.k8s.io/pause:3.10").endContainer()
        .endSpec()
        .build()).create();
    await("pod Running").atMost(DEADLINE)
        .until(() -> "Running".equals(pods.withName("pod").get().getStatus().getPhase()));

    Widgets.widget(client, ns.name(), "owner").delete();

    AtomicReference<Pod> terminating = new AtomicReference<>();
    await("pod Terminating").atMost(DEADLINE).pollInterval(Duration.ofMillis(100)).until(() -> {
      Pod pod = pods.withName("pod").get();
      terminating.set(pod);
      return pod == null || pod.getMetadata().getDeletionTimestamp() != null;
    });
    Pod pod = terminating.get();
    assertNotNull(pod, "the pod is still there, in its grace period, once it is being deleted");
    assertEquals(8L, pod.getMetadata().getDeletionGracePeriodSeconds(),
        "the grace period of the owner's annotation");
    GenericKubernetesResource waiting = Widgets.widget(client, ns.name(), "owner").get();
    assertNotNull(waiting, "the owner is still present while the pod terminates");
    assertNotNull(waiting.getMetadata().getDeletionTimestamp(), "the owner is being deleted");

    // Owner read before pod: an owner gone while its pod is still there would be a violation.
    List<String> violations = new ArrayList<>();
    await("pod gone, the owner waiting for it").atMost(DEADLINE).pollInterval(Duration.ofMillis(100))
        .until(() -> {
          GenericKubernetesResource o = Widgets.widget(client, ns.name(), "owner").get();
          Pod p = pods.withName("pod").get();
          if (p != null && (o == null || o.getMetadata().getDeletionTimestamp() == null)) {
            violations.add("pod present (deletionTimestamp " + p.getMetadata().getDeletionTimestamp()
                + ") while owner is " + (o == null ? "gone" : "not being deleted"));
          }
          return p == null;
        });
    assertTrue(violations.isEmpty(), "owner still present while the pod terminates: " + violations);
    await("owner gone").atMost(DEADLINE)
        .until(() -> Widgets.widget(client, ns.name(), "owner").get() == null);
  }
}
