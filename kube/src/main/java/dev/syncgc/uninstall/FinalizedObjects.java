package dev.syncgc.uninstall;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.DiscoverySource;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a release must look at: every object carrying the syncgc finalizer, of every kind the API
 * server serves with {@code list} ({@link ListableKinds}) outside a scope, and the kinds that could not
 * be listed, each with why. In the chart's restricted mode ({@code grantedKindsOnly}) a kind this
 * identity may not list (403) is not granted, told apart from one that failed otherwise.
 *
 * @param held the objects found, by uid, in the order listed
 * @param kinds every listable kind, scope or not (the foreground hand-over looks for kept dependents in all)
 */
record FinalizedObjects(Map<String, Held> held, List<TrackedKind> kinds, List<String> notListed,
    List<String> notGranted) {
  private static final Logger log = LoggerFactory.getLogger(FinalizedObjects.class);

  /** An object carrying the finalizer, of {@code kind}; {@code why} the scope holds it out. */
  record Held(TrackedKind kind, ObjectMetadata meta, String why) {}

  static FinalizedObjects find(KubeApi api, DiscoverySource served, Uninstall.Scope scope, boolean grantedKindsOnly) {
    ListableKinds.Found found = ListableKinds.read(served);
    List<String> notListed = new ArrayList<>(found.unreadable());
    List<String> notGranted = new ArrayList<>();
    MetadataReader reader = new MetadataReader();
    Map<String, Held> held = new LinkedHashMap<>();
    for (TrackedKind kind : found.kinds()) {
      if (scope.coversEvery(kind)) {
        continue;
      }
      try {
        api.listAllMetadata(kind, null, item -> {
          if (item.getMetadata() != null && item.getMetadata().getUid() != null
              && item.getMetadata().getFinalizers().contains(Names.FINALIZER)) {
            ObjectMetadata meta = reader.read(kind, item);
            String why = scope.outside(kind, meta);
            if (why != null) {
              held.put(meta.uid(), new Held(kind, meta, why));
            }
          }
        });
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          log.info("kind={} is no longer served; none of its objects is left", kind);
          continue;
        }
        if (e.getCode() == 403 && grantedKindsOnly) {
          notGranted.add(ListableKinds.name(kind));
          continue;
        }
        notListed.add(ListableKinds.name(kind) + " (" + (e.getCode() == 403 ? "forbidden"
            : e.getCode() == 0 ? "no answer" : "HTTP " + e.getCode()) + ")");
        if (e.getCode() == 403) {
          log.debug("cannot list kind={}: forbidden", kind); // all named in one line at the end
        } else {
          log.warn("cannot list kind={} code={} error=\"{}\"", kind, e.getCode(), e.getMessage());
        }
      }
    }
    return new FinalizedObjects(held, found.kinds(), List.copyOf(notListed), List.copyOf(notGranted));
  }
}
