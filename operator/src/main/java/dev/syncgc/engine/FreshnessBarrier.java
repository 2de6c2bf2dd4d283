package dev.syncgc.engine;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the graph is at least as fresh as an owner's deletion before the owner is released,
 * so that a dependent created just before the deletion, and not yet seen, is never missed (the
 * "unhandled case" of the Kubernetes synchronous-GC proposal).
 *
 * <p>Watches of different kinds are not ordered with each other. A kind whose informer has already
 * delivered an event at or past the owner's resourceVersion is fresh enough. For any other kind, one
 * consistent LIST (in the owner's namespace) answers the question; its result is remembered, so a
 * whole wave of owners released together costs one LIST per quiet kind.
 */
final class FreshnessBarrier {
  private static final Logger log = LoggerFactory.getLogger(FreshnessBarrier.class);

  private final KubeApi api;
  private final Map<String, AtomicLong> watermarks = new ConcurrentHashMap<>();
  private final Map<String, Long> verified = new ConcurrentHashMap<>();
  private final Map<String, Object> locks = new ConcurrentHashMap<>();
  private final BiConsumer<TrackedKind, GenericKubernetesResource> feed;

  /** @param feed where objects found by a LIST go: into the graph, as if watched */
  FreshnessBarrier(KubeApi api, BiConsumer<TrackedKind, GenericKubernetesResource> feed) {
    this.api = api;
    this.feed = feed;
  }

  /** An informer of this kind delivered an event at this resourceVersion. */
  void observed(TrackedKind kind, long resourceVersion) {
    watermarks.computeIfAbsent(kind.groupKind(), k -> new AtomicLong())
        .accumulateAndGet(resourceVersion, Math::max);
  }

  /**
   * Whether no dependent of {@code owner} exists that the graph has not seen.
   *
   * @return false if one was found (it is now in the graph)
   */
  boolean noUnseenDependents(ObjectMetadata owner, List<TrackedKind> kinds) {
    for (TrackedKind kind : kinds) {
      if (owner.ref().namespaced() && !kind.namespaced()) {
        continue; // a cluster-scoped object cannot have a namespaced owner
      }
      if (watermark(kind) >= owner.resourceVersion()) {
        continue;
      }
      String namespace = owner.ref().namespaced() ? owner.ref().namespace() : null;
      String key = kind.groupKind() + "@" + namespace;
      if (verified.getOrDefault(key, 0L) >= owner.resourceVersion()) {
        continue;
      }
      synchronized (locks.computeIfAbsent(key, k -> new Object())) {
        if (verified.getOrDefault(key, 0L) >= owner.resourceVersion()) {
          continue;
        }
        if (listFinds(kind, namespace, owner, key)) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean listFinds(TrackedKind kind, String namespace, ObjectMetadata owner, String key) {
    boolean[] found = {false};
    long listedAt;
    try {
      listedAt = api.listAll(kind, namespace, item -> {
        if (names(item, owner.uid())) {
          log.info("found unseen dependent kind={} name={} owner={}", kind, item.getMetadata().getName(),
              owner.ref());
          feed.accept(kind, item);
          found[0] = true;
        }
      });
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403 || e.getCode() == 404) {
        // a kind syncgc may not list, or that went away, cannot hold dependents it could delete
        log.warn("cannot verify kind={} code={}; treating it as holding no dependents", kind, e.getCode());
        return false;
      }
      throw e;
    }
    verified.merge(key, listedAt, Math::max);
    return found[0];
  }

  private long watermark(TrackedKind kind) {
    AtomicLong w = watermarks.get(kind.groupKind());
    return w == null ? 0 : w.get();
  }

  private static boolean names(GenericKubernetesResource item, String ownerUid) {
    for (OwnerReference ref : item.getMetadata().getOwnerReferences()) {
      if (ownerUid.equals(ref.getUid())) {
        return true;
      }
    }
    return false;
  }
}
