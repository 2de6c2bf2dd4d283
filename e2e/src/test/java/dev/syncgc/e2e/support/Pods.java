package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;

/** Pods that run on the test cluster's node (on KWOK: that it reports Running). */
public final class Pods {
  public static final Duration RUNNING_DEADLINE = Duration.ofSeconds(60);

  private Pods() {}

  /**
   * Creates a {@code pause} Pod on {@link TestCluster#nodeName()} with a termination grace period of
   * 30 s, owned as given, and waits until it is Running; returns it as created.
   */
  public static Pod createRunning(KubernetesClient client, String namespace, String name,
      OwnerReference... owners) {
    Namespaces.awaitDefaultServiceAccount(client, namespace);
    var pods = client.pods().inNamespace(namespace);
    Pod created = pods.resource(new PodBuilder()
        .withNewMetadata().withName(name).withOwnerReferences(List.of(owners)).endMetadata()
        .withNewSpec()
            .withNodeName(TestCluster.get().nodeName())
            .withAutomountServiceAccountToken(false)
            .withTerminationGracePeriodSeconds(30L)
            .addNewContainer().withName("pause").withImage("registry.k8s.io/pause:3.10").endContainer()
        .endSpec()
        .build()).create();
    await("pod " + name + " Running").atMost(RUNNING_DEADLINE)
        .until(() -> "Running".equals(pods.withName(name).get().getStatus().getPhase()));
    return created;
  }
}
