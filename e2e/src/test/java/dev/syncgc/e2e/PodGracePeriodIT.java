package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.SpecNames.GRACE_PERIOD;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Pods;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The grace period of the owner's annotation is passed on the cascade's DELETE of a Pod, and the
 * owner waits for the Pod's graceful termination (on kind: a real container that traps SIGTERM and
 * exits a few seconds later).
 */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class PodGracePeriodIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void podDependentIsDeletedWithOwnersGracePeriodWhileOwnerWaits(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner")
        .synchronous()
        .annotate(GRACE_PERIOD, "8")
        .applyAndAwaitFinalizer();
    // on kind a container that takes 3 s to stop after SIGTERM: the owner must wait for it
    Pods.createRunningSlowToStop(client, ns.name(), "pod", 3, Widgets.ownerReference(owner));
    var pods = client.pods().inNamespace(ns.name());

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
