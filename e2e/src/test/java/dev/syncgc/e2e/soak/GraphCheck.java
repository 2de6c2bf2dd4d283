package dev.syncgc.e2e.soak;

import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.support.OperatorProcess;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;

/**
 * After the soak, with nothing changing: the leader's graph holds exactly the objects of a fresh
 * LIST of every kind it tracks (the soak runs it with {@code --builtin-kinds ConfigMap,Pod}, plus
 * every established CRD), by identity: the same uids, each naming the same owner uids. The graph is
 * read from the leader's {@code /debug/graph}: counts alone would let a graph that kept a deleted
 * object and lost a live one, or kept one reference an update removed and lost another, pass.
 */
final class GraphCheck {
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  /** The most differences of each sort named in the report. */
  private static final int NAMED = 10;

  private GraphCheck() {}

  /** Null when they agree (within the deadline), else what differs. */
  static String check(KubernetesClient client, OperatorProcess leader) {
    AtomicReference<String> last = new AtomicReference<>();
    try {
      await("the leader's graph agrees with a LIST").atMost(DEADLINE).pollInterval(Duration.ofSeconds(5))
          .ignoreExceptions().until(() -> {
            Map<String, Set<String>> listed = identities(listed(client));
            Map<String, Set<String>> graph = dump(leader);
            String difference = difference(graph, listed);
            last.set(difference);
            return difference == null;
          });
      return null;
    } catch (ConditionTimeoutException e) {
      return "after " + DEADLINE + ": " + (last.get() == null ? "the leader's graph could not be read: " + e.getMessage()
          : last.get());
    }
  }

  /** What differs between the graph and a LIST (uid to owner uids), null if nothing. */
  static String difference(Map<String, Set<String>> graph, Map<String, Set<String>> listed) {
    List<String> missing = listed.keySet().stream().filter(uid -> !graph.containsKey(uid)).toList();
    List<String> extra = graph.keySet().stream().filter(uid -> !listed.containsKey(uid)).toList();
    List<String> owners = listed.keySet().stream().filter(graph::containsKey)
        .filter(uid -> !graph.get(uid).equals(listed.get(uid)))
        .map(uid -> uid + " names " + listed.get(uid) + " but the graph has " + graph.get(uid)).toList();
    if (missing.isEmpty() && extra.isEmpty() && owners.isEmpty()) {
      return null;
    }
    return "graph " + graph.size() + " objects, LIST " + listed.size() + "; not in the graph: " + named(missing)
        + "; in the graph, not listed: " + named(extra) + "; other owners: " + named(owners);
  }

  private static String named(List<String> items) {
    return items.size() + (items.isEmpty() ? "" : " " + items.subList(0, Math.min(NAMED, items.size())));
  }

  /** The leader's graph as its {@code /debug/graph} gives it (the soak runs it with {@code --debug-graph}). */
  static Map<String, Set<String>> dump(OperatorProcess leader) {
    var response = leader.get("/debug/graph");
    if (response.statusCode() != 200) {
      throw new IllegalStateException("GET /debug/graph answered " + response.statusCode());
    }
    return parse(response.body());
  }

  /** uid to owner uids from the lines of {@code /debug/graph}. */
  static Map<String, Set<String>> parse(String lines) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (String line : lines.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      int space = line.indexOf(' ');
      String owners = line.substring(space + 1);
      out.put(line.substring(0, space), owners.isEmpty() ? Set.of() : new LinkedHashSet<>(List.of(owners.split(","))));
    }
    return out;
  }

  private static Map<String, Set<String>> identities(List<HasMetadata> objects) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (HasMetadata o : objects) {
      Set<String> owners = new LinkedHashSet<>();
      o.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid).forEach(owners::add);
      out.put(o.getMetadata().getUid(), owners);
    }
    return out;
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
