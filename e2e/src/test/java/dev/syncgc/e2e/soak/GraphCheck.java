package dev.syncgc.e2e.soak;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.OperatorProcess;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * After the soak, with nothing changing: the leader's graph holds exactly as many objects, and as
 * many owner references, as a fresh LIST of every kind it tracks (the soak runs it with
 * {@code --builtin-kinds ConfigMap,Pod}, plus every established CRD). A graph that kept a deleted
 * object, lost a live one, or kept a reference an update removed, differs.
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
            List<HasMetadata> listed = listed(client);
            long references = listed.stream().mapToLong(o -> o.getMetadata().getOwnerReferences().stream()
                .map(OwnerReference::getUid).distinct().count()).sum();
            Metrics metrics = Metrics.parse(leader.metrics());
            long objects = (long) metrics.sum("syncgc_graph_objects", Map.of()).orElse(-1);
            long edges = (long) metrics.sum("syncgc_graph_owner_references", Map.of()).orElse(-1);
            last.set("graph: " + objects + " objects, " + edges + " owner references; a LIST: " + listed.size()
                + " objects, " + references + " owner references");
            return objects == listed.size() && edges == references;
          });
      return null;
    } catch (ConditionTimeoutException e) {
      return "after " + DEADLINE + ": " + last.get();
    }
  }

  static List<HasMetadata> listed(KubernetesClient client) {
    List<HasMetadata> out = new ArrayList<>();
    out.addAll(client.configMaps().inAnyNamespace().list().getItems());
    out.addAll(client.pods().inAnyNamespace().list().getItems());
    for (CustomResourceDefinition crd : client.apiextensions().v1().customResourceDefinitions().list().getItems()) {
      var version = crd.getSpec().getVersions().stream().filter(v -> Boolean.TRUE.equals(v.getStorage())).findFirst();
      if (version.isPresent()) {
        ResourceDefinitionContext kind = new ResourceDefinitionContext.Builder()
            .withGroup(crd.getSpec().getGroup()).withVersion(version.get().getName())
            .withKind(crd.getSpec().getNames().getKind()).withPlural(crd.getSpec().getNames().getPlural())
            .withNamespaced("Namespaced".equals(crd.getSpec().getScope())).build();
        var objects = client.genericKubernetesResources(kind);
        out.addAll((kind.isNamespaceScoped() ? objects.inAnyNamespace().list() : objects.list()).getItems());
      }
    }
    return out;
  }
}
