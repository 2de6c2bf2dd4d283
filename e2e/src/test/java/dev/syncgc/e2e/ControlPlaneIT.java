package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.Pods;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Proves the harness talks to a real control plane: the built-in controllers do their work. */
@ExtendWith(TestNamespace.Extension.class)
class ControlPlaneIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Duration GC_DEADLINE = Duration.ofSeconds(120);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void apiServerReportsKubernetesVersion() {
    var version = client.getKubernetesVersion();
    assertEquals("1", version.getMajor());
    assertTrue(version.getGitVersion().startsWith("v1."), version.getGitVersion());
  }

  @Test
  void builtInGarbageCollectorDeletesDependentOfOwnerDeletedInBackground(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").apply();
    Widgets.create(client, ns.name(), "dependent").ownedBy(owner).apply();

    Widgets.widget(client, ns.name(), "owner")
        .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();

    // Longer: the collector only notices a new CRD at its periodic discovery resync (30 s).
    await("dependent collected").atMost(GC_DEADLINE)
        .until(() -> Widgets.widget(client, ns.name(), "dependent").get() == null);
  }

  @Test
  void namespaceControllerDeletesNamespaceWithItsContent(TestNamespace ns) {
    client.configMaps().inNamespace(ns.name()).resource(new ConfigMapBuilder()
        .withNewMetadata().withName("config").endMetadata()
        .addToData("key", "value").build()).create();
    Widgets.create(client, ns.name(), "widget").apply();

    Namespaces.deleteAsync(client, ns.name());

    await("namespace " + ns + " gone").atMost(DEADLINE)
        .until(() -> client.namespaces().withName(ns.name()).get() == null);
  }

  @Test
  void podOnNodeRunsAndIsDeletedGracefully(TestNamespace ns) {
    Pods.createRunning(client, ns.name(), "pod");
    var pods = client.pods().inNamespace(ns.name());

    pods.withName("pod").withGracePeriod(5).delete();

    Pod terminating = pods.withName("pod").get();
    assertNotNull(terminating, "pod still present during its grace period");
    assertNotNull(terminating.getMetadata().getDeletionTimestamp(), "pod is Terminating");
    await("pod gone").atMost(DEADLINE).until(() -> pods.withName("pod").get() == null);
  }
}
