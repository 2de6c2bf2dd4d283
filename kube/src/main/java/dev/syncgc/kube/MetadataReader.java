package dev.syncgc.kube;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns an API object into the metadata the graph keeps. Owner kinds are not resolved here (the graph
 * asks discovery when it judges a reference), so the watch path makes no discovery lookups.
 */
public final class MetadataReader {
  /** @param kind the kind it was listed or watched as (list items may not say) */
  public ObjectMetadata read(TrackedKind kind, HasMetadata object) {
    ObjectMeta m = object.getMetadata();
    ObjectRef ref = new ObjectRef(Interner.intern(kind.apiVersion()), Interner.intern(kind.kind()),
        Interner.intern(m.getNamespace()), m.getName(), m.getUid());
    List<OwnerLink> owners = new ArrayList<>();
    for (OwnerReference o : m.getOwnerReferences()) {
      owners.add(new OwnerLink(o.getUid(), Interner.intern(o.getApiVersion()),
          Interner.intern(o.getKind()), o.getName()));
    }
    List<String> finalizers = new ArrayList<>();
    for (String f : m.getFinalizers()) {
      finalizers.add(Interner.intern(f));
    }
    Map<String, String> annotations = new HashMap<>();
    if (m.getAnnotations() != null) {
      m.getAnnotations().forEach((k, v) -> {
        if (k.startsWith(Names.ANNOTATION_PREFIX)) {
          annotations.put(Interner.intern(k), v);
        }
      });
    }
    Map<String, String> labels = new HashMap<>();
    if (m.getLabels() != null) {
      m.getLabels().forEach((k, v) -> labels.put(Interner.intern(k), Interner.intern(v)));
    }
    return new ObjectMetadata(ref, parseVersion(m.getResourceVersion()), owners, finalizers,
        m.getDeletionTimestamp() == null ? null : Instant.parse(m.getDeletionTimestamp()),
        m.getDeletionGracePeriodSeconds(), annotations, labels);
  }

  /** resourceVersions are etcd revisions; Kubernetes 1.34 made comparing them part of the API. */
  public static long parseVersion(String resourceVersion) {
    try {
      return Long.parseLong(resourceVersion);
    } catch (NumberFormatException | NullPointerException e) {
      return 0;
    }
  }
}
