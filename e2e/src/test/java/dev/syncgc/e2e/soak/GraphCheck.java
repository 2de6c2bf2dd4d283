package dev.syncgc.e2e.soak;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.OperatorProcess;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * After the soak, with nothing changing: the leader's graph holds exactly as many objects as a fresh
 * LIST of every kind it tracks (the soak runs it with {@code --builtin-kinds ConfigMap,Pod}, plus
 * every established CRD). A graph that kept a deleted object or lost a live one differs.
 */
final class GraphCheck {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private GraphCheck() {}

  /** Null when they agree (within the deadline), else what differs. */
  static String check(KubernetesClient client, OperatorProcess leader) {
    AtomicReference<String> last = new AtomicReference<>();
    try {
      await("the leader's graph agrees with a LIST").atMost(DEADLINE).pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions().until(() -> {
            long listed = listed(client);
            double graph = Metrics.parse(leader.metrics()).sum("syncgc_graph_objects", Map.of()).orElse(-1);
            last.set("syncgc_graph_objects " + (long) graph + ", a LIST of the tracked kinds " + listed);
            return graph == listed;
          });
      return null;
    } catch (ConditionTimeoutException e) {
      return "after " + DEADLINE + ": " + last.get();
    }
  }

  static long listed(KubernetesClient client) {
    long count = client.configMaps().inAnyNamespace().list().getItems().size()
        + client.pods().inAnyNamespace().list().getItems().size();
    for (CustomResourceDefinition crd : client.apiextensions().v1().customResourceDefinitions().list().getItems()) {
      var version = crd.getSpec().getVersions().stream().filter(v -> Boolean.TRUE.equals(v.getStorage())).findFirst();
      if (version.isPresent()) {
        ResourceDefinitionContext kind = new ResourceDefinitionContext.Builder()
            .withGroup(crd.getSpec().getGroup()).withVersion(version.get().getName())
            .withKind(crd.getSpec().getNames().getKind()).withPlural(crd.getSpec().getNames().getPlural())
            .withNamespaced("Namespaced".equals(crd.getSpec().getScope())).build();
        var objects = client.genericKubernetesResources(kind);
        count += (kind.isNamespaceScoped() ? objects.inAnyNamespace().list() : objects.list()).getItems().size();
      }
    }
    return count;
  }
}
