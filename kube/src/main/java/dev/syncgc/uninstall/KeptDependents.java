package dev.syncgc.uninstall;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SPEC "Keep one dependent" in the uninstall's release: a {@code Synchronous} owner under deletion is
 * handed to foreground deletion, where the built-in collector deletes every dependent, kept ones too.
 * So the dependents of those owners that are kept ({@code syncgc.dev/keep}, or the policy deciding for
 * them) lose their reference to the owner first, as syncgc's own cascade would have removed it. Found
 * with a second pass over every listable kind, made only when such an owner is held, so that the
 * release keeps no other object in memory.
 */
final class KeptDependents {
  private static final Logger log = LoggerFactory.getLogger(KeptDependents.class);

  private record Kept(TrackedKind kind, ObjectMetadata object) {}

  private final Map<String, List<Kept>> byOwner = new HashMap<>();

  private KeptDependents() {}

  /** No owner is handed to foreground deletion: nothing to look for. */
  static final KeptDependents NONE = new KeptDependents();

  /** The kept dependents of {@code owners} (uids), in every kind of {@code kinds} that can be listed. */
  static KeptDependents of(KubeApi api, List<TrackedKind> kinds, Set<String> owners, PoliciesInForce policies) {
    KeptDependents found = new KeptDependents();
    MetadataReader reader = new MetadataReader();
    for (TrackedKind kind : kinds) {
      try {
        api.listAllMetadata(kind, null, item -> {
          if (item.getMetadata() == null || item.getMetadata().getOwnerReferences() == null
              || item.getMetadata().getOwnerReferences().stream().noneMatch(r -> owners.contains(r.getUid()))) {
            return;
          }
          ObjectMetadata meta = reader.read(kind, item);
          if (policies.store.settingsOf(meta).keep()) {
            for (OwnerLink link : meta.owners()) {
              if (owners.contains(link.uid())) {
                found.byOwner.computeIfAbsent(link.uid(), u -> new ArrayList<>()).add(new Kept(kind, meta));
              }
            }
          }
        });
      } catch (KubernetesClientException e) {
        log.debug("kind={} not listed for kept dependents: HTTP {}", kind, e.getCode()); // named by the first pass
      }
    }
    return found;
  }

  /**
   * Removes the owner's reference from each of its kept dependents (a JSON patch that tests the list);
   * false, logged, when one could not be removed: the owner is then not handed over.
   */
  boolean dropReferences(ObjectWrites writes, ObjectMetadata owner) {
    for (Kept k : byOwner.getOrDefault(owner.uid(), List.of())) {
      ApiResult r = writes.removeOwnerReference(k.kind(), k.object(), owner.uid(), () -> null);
      if (r.answer().settled()) {
        log.info("removed owner reference object={} uid={} owner={} reason=\"the dependent is kept\"", k.object().ref(),
            k.object().uid(), owner.ref());
        continue;
      }
      log.warn("could not remove the reference to object={} uid={} from its kept dependent {}: {}; it keeps syncgc's"
          + " finalizer: run the release again", owner.ref(), owner.uid(), k.object().ref(), r.message());
      return false;
    }
    return true;
  }
}
