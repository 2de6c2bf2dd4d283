package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
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
    return createRunning(client, namespace, name, new ContainerBuilder().withName("pause")
        .withImage("registry.k8s.io/pause:3.10").build(), owners);
  }

  /**
   * On a real kubelet (kind), a Pod whose container traps SIGTERM and exits {@code seconds} later,
   * so that its graceful termination really takes time; on KWOK, {@link #createRunning} (KWOK's
   * stages play the termination). The shell comes from the operator's image, which kind.sh loads
   * into the node ({@code SYNCGC_E2E_SHELL_IMAGE} to choose another).
   */
  public static Pod createRunningSlowToStop(KubernetesClient client, String namespace, String name,
      int seconds, OwnerReference... owners) {
    if (TestCluster.get().isLocal()) {
      return createRunning(client, namespace, name, owners);
    }
    String image = TestCluster.setting("SYNCGC_E2E_SHELL_IMAGE");
    return createRunning(client, namespace, name, new ContainerBuilder().withName("slow-to-stop")
        .withImage(image != null ? image : "syncgc/operator:dev").withImagePullPolicy("IfNotPresent")
        .withCommand("/bin/sh", "-c", "trap 'sleep " + seconds + "; exit 0' TERM; "
            + "while true; do sleep 1 & wait $!; done")
        .build(), owners);
  }

  private static Pod createRunning(KubernetesClient client, String namespace, String name,
      Container container, OwnerReference... owners) {
    Namespaces.awaitDefaultServiceAccount(client, namespace);
    var pods = client.pods().inNamespace(namespace);
    Pod created = pods.resource(new PodBuilder()
        .withNewMetadata().withName(name).withOwnerReferences(List.of(owners)).endMetadata()
        .withNewSpec()
            .withNodeName(TestCluster.get().nodeName())
            .withAutomountServiceAccountToken(false)
            .withTerminationGracePeriodSeconds(30L)
            .withContainers(container)
        .endSpec()
        .build()).create();
    await("pod " + name + " Running").atMost(RUNNING_DEADLINE)
        .until(() -> "Running".equals(pods.withName(name).get().getStatus().getPhase()));
    return created;
  }
}
