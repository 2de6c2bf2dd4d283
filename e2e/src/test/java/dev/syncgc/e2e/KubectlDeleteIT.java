package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Plain {@code kubectl delete}, which waits by default, returns once the whole tree is gone. */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class KubectlDeleteIT {
  private static final Duration KUBECTL_DEADLINE = Duration.ofSeconds(120);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void plainKubectlDeleteReturnsOnlyWhenAllDependentsAreGone(TestNamespace ns) {
    GenericKubernetesResource owner =
        Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
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

    // fails if kubectl delete does not return within the deadline
    ProcessRunner.Result kubectl = ProcessRunner.kubectl(KUBECTL_DEADLINE,
        "delete", "widgets.test.syncgc.dev", "owner", "-n", ns.name());
    assertEquals(0, kubectl.exitCode(), "kubectl delete failed: " + kubectl.describe());

    // right after kubectl returned: nothing of the tree is left
    for (String dependent : dependents) {
      assertNull(Widgets.widget(client, ns.name(), dependent).get(), dependent + " is gone");
    }
    assertNull(Widgets.widget(client, ns.name(), "owner").get(), "owner is gone");
  }
}
