package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Fabric8 informer per tracked kind (and per watched namespace when they are restricted),
 * each with a {@link SlimItemStore}, feeding one {@link ObjectEvents} sink.
 */
public final class ObjectInformers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ObjectInformers.class);

  /** What an informer reports. Calls for one kind come in the order the API server sent them. */
  public interface ObjectEvents {
    void upserted(TrackedKind kind, GenericKubernetesResource object);

    void deleted(TrackedKind kind, GenericKubernetesResource object);
  }

  private final KubernetesClient client;
  private final Set<String> namespaces;
  private final ObjectEvents sink;
  private final Map<String, TrackedKind> kinds = new ConcurrentHashMap<>();
  private final Map<String, List<SharedIndexInformer<GenericKubernetesResource>>> informers =
      new ConcurrentHashMap<>();

  /** @param namespaces the namespaces to watch; empty for all */
  public ObjectInformers(KubernetesClient client, Set<String> namespaces, ObjectEvents sink) {
    this.client = client;
    this.namespaces = namespaces;
    this.sink = sink;
  }

  /** Starts watching a kind, unless it is watched already; completes once its initial list is in. */
  public synchronized CompletableFuture<Void> track(TrackedKind kind) {
    TrackedKind existing = kinds.get(kind.groupKind());
    if (existing != null) {
      if (existing.equals(kind)) {
        return CompletableFuture.completedFuture(null);
      }
      untrack(existing); // the CRD's storage version changed
    }
    kinds.put(kind.groupKind(), kind);
    List<SharedIndexInformer<GenericKubernetesResource>> started = new ArrayList<>();
    List<CompletableFuture<?>> synced = new ArrayList<>();
    var resources = client.genericKubernetesResources(kind.context());
    if (!kind.namespaced() || namespaces.isEmpty()) {
      started.add(resources.inAnyNamespace().runnableInformer(0));
    } else {
      for (String ns : namespaces) {
        started.add(resources.inNamespace(ns).runnableInformer(0));
      }
    }
    for (SharedIndexInformer<GenericKubernetesResource> informer : started) {
      informer.itemStore(new SlimItemStore(kind.apiVersion(), kind.kind()));
      informer.addEventHandler(handler(kind));
      informer.exceptionHandler((isStarted, t) -> {
        log.warn("watch failed kind={} error={}", kind, t.toString());
        return true; // keep retrying: a missing permission should be fixable without a restart
      });
      synced.add(informer.start().toCompletableFuture());
    }
    informers.put(kind.groupKind(), started);
    log.info("tracking kind={} namespaced={}", kind, kind.namespaced());
    return CompletableFuture.allOf(synced.toArray(CompletableFuture[]::new));
  }

  public synchronized void untrack(TrackedKind kind) {
    kinds.remove(kind.groupKind());
    List<SharedIndexInformer<GenericKubernetesResource>> stopped = informers.remove(kind.groupKind());
    if (stopped != null) {
      stopped.forEach(SharedIndexInformer::stop);
      log.info("stopped tracking kind={}", kind);
    }
  }

  public boolean tracks(String groupKind) {
    return kinds.containsKey(groupKind);
  }

  public TrackedKind kind(String groupKind) {
    return kinds.get(groupKind);
  }

  public List<TrackedKind> kinds() {
    return List.copyOf(kinds.values());
  }

  /** Whether every informer has completed its initial list. */
  public boolean synced() {
    return informers.values().stream().flatMap(List::stream).allMatch(SharedIndexInformer::hasSynced);
  }

  private ResourceEventHandler<GenericKubernetesResource> handler(TrackedKind kind) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(GenericKubernetesResource obj) {
        sink.upserted(kind, obj);
      }

      @Override
      public void onUpdate(GenericKubernetesResource oldObj, GenericKubernetesResource newObj) {
        sink.upserted(kind, newObj);
      }

      @Override
      public void onDelete(GenericKubernetesResource obj, boolean finalStateUnknown) {
        sink.deleted(kind, obj);
      }
    };
  }

  @Override
  public synchronized void close() {
    informers.values().forEach(list -> list.forEach(SharedIndexInformer::stop));
    informers.clear();
  }
}
