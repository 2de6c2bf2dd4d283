package dev.syncgc.cli.cluster;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The Ready condition of the objects a command shows, from their {@code status.conditions}, as
 * kubectl-tree reads it. The snapshot holds metadata only, so the objects shown are read again in
 * full: one list per kind and namespace (by name when only one object is wanted). ConfigMaps and
 * Secrets have no status and are not read (a Secret's data never); a kind that cannot be listed
 * shows no condition, as an object without one.
 */
public final class Readiness {
  /** The Ready condition: its status (True, False or Unknown) and its reason, null when it gives none. */
  public record Ready(String status, String reason) {}

  /** Kinds with no status at all ({@code group/Kind}). */
  private static final Set<String> NO_STATUS = Set.of("/ConfigMap", "/Secret");
  private static final long PAGE = 500;

  private Readiness() {}

  /** The Ready condition of each of {@code objects} that has one, by uid. */
  public static Map<String, Ready> read(Cluster cluster, Kinds kinds, Collection<ObjectMetadata> objects) {
    Map<TrackedKind, Map<String, List<String>>> wanted = new LinkedHashMap<>(); // kind -> namespace -> names
    for (ObjectMetadata o : objects) {
      kinds.find(o.ref().apiVersion(), o.ref().kind()).filter(k -> !NO_STATUS.contains(k.group() + "/" + k.kind()))
          .ifPresent(k -> wanted.computeIfAbsent(k, x -> new LinkedHashMap<>())
              .computeIfAbsent(o.ref().namespace() == null ? "" : o.ref().namespace(), x -> new ArrayList<>())
              .add(o.ref().name()));
    }
    List<Runnable> reads = new ArrayList<>();
    Map<String, Ready> ready = new HashMap<>();
    wanted.forEach((kind, byNamespace) -> byNamespace.forEach((namespace, names) -> reads.add(() -> {
      for (GenericKubernetesResource item : list(cluster, kind, namespace, names)) {
        Ready r = of(item);
        if (r != null) {
          synchronized (ready) {
            ready.put(item.getMetadata().getUid(), r);
          }
        }
      }
    })));
    Parallel.map(reads, r -> {
      r.run();
      return r;
    });
    return ready;
  }

  /** The objects of {@code kind} in {@code namespace} ("" cluster-scoped), all of them a page at a time, or the one named. */
  private static List<GenericKubernetesResource> list(Cluster cluster, TrackedKind kind, String namespace,
      List<String> names) {
    var all = cluster.client.genericKubernetesResources(kind.context());
    var in = namespace.isEmpty() ? all : all.inNamespace(namespace);
    List<GenericKubernetesResource> items = new ArrayList<>();
    try {
      if (names.size() == 1) {
        return in.withField("metadata.name", names.get(0)).list().getItems();
      }
      String next = null;
      do {
        var page = in.list(new ListOptionsBuilder().withLimit(PAGE).withContinue(next).build());
        items.addAll(page.getItems());
        next = page.getMetadata() == null ? null : page.getMetadata().getContinue();
      } while (next != null && !next.isEmpty());
    } catch (KubernetesClientException e) {
      return List.of(); // not listable: no condition shown, as for an object without one
    }
    return items;
  }

  /** The object's Ready condition, null when it has none (or no readable status). */
  public static Ready of(GenericKubernetesResource object) {
    if (!(object.getAdditionalProperties().get("status") instanceof Map<?, ?> status)
        || !(status.get("conditions") instanceof List<?> conditions)) {
      return null;
    }
    for (Object c : conditions) {
      if (c instanceof Map<?, ?> condition && "Ready".equals(condition.get("type"))
          && condition.get("status") instanceof String value) {
        return new Ready(value, condition.get("reason") instanceof String reason ? reason : null);
      }
    }
    return null;
  }
}
