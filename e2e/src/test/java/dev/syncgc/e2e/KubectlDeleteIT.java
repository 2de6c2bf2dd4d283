package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.Finalizers;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Plain {@code kubectl delete}, which waits by default, returns once the whole tree is gone. */
@ExtendWith(TestNamespace.Extension.class)
class KubectlDeleteIT {
  private static final long KUBECTL_DEADLINE_SECONDS = 120;
  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void operator() {
    SharedOperator.get();
  }

  @Test
  void plainKubectlDeleteReturnsOnlyWhenAllDependentsAreGone(TestNamespace ns) throws Exception {
    Widgets.create(client, ns.name(), "owner").annotate("syncgc.dev/propagation", "Synchronous").apply();
    GenericKubernetesResource owner =
        Finalizers.awaitSyncgc(() -> Widgets.widget(client, ns.name(), "owner").get());
    List<String> dependents = new ArrayList<>();
    for (int c = 0; c < 3; c++) {
      String child = "child-" + c;
      GenericKubernetesResource childObject =
          Widgets.create(client, ns.name(), child).ownedBy(owner).apply();
      dependents.add(child);
      for (int g = 0; g < 2; g++) {
        String grandchild = child + "-grandchild-" + g;
        Widgets.create(client, ns.name(), grandchild).ownedBy(childObject).apply();
        dependents.add(grandchild);
      }
    }

    Path output = Files.createTempFile("kubectl-delete", ".log");
    try {
      ProcessBuilder kubectl = new ProcessBuilder(TestCluster.get().kubectl(),
          "delete", "widgets.test.syncgc.dev", "owner", "-n", ns.name())
          .redirectErrorStream(true).redirectOutput(output.toFile());
      kubectl.environment().put("KUBECONFIG", TestCluster.get().kubeconfig().toString());
      Process process = kubectl.start();
      boolean exited = process.waitFor(KUBECTL_DEADLINE_SECONDS, TimeUnit.SECONDS);
      if (!exited) {
        process.destroyForcibly().waitFor();
      }
      String log = Files.readString(output, StandardCharsets.UTF_8);
      assertTrue(exited, "kubectl delete did not return within " + KUBECTL_DEADLINE_SECONDS + " s: " + log);
      assertEquals(0, process.exitValue(), "kubectl delete failed: " + log);

      // right after kubectl returned: nothing of the tree is left
      for (String dependent : dependents) {
        assertNull(Widgets.widget(client, ns.name(), dependent).get(), dependent + " is gone");
      }
      assertNull(Widgets.widget(client, ns.name(), "owner").get(), "owner is gone");
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
