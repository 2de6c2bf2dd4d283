package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One read of every group-version the API server serves, the discovery's raw material. A group-version that
 * cannot be read now (an aggregated API down) keeps what the last good read said of it, and is named
 * in {@link #unread}: a known kind never turns unknown because of a passing failure, which would make
 * references to it invalid and owners of it look gone.
 *
 * @param byGroupVersion the kinds of each group-version ("v1", "apps/v1")
 * @param deletableByGroupVersion the kinds (group/kind) of each served with list, watch and delete
 * @param preferredVersions the group-versions that are their group's preferred version
 * @param unread the group-versions whose read failed this time, sorted
 * @param shortNames the short names of each kind (group/kind) that has any ({@code cm}, {@code deploy})
 */
record ServedRead(Map<String, List<TrackedKind>> byGroupVersion, Map<String, Set<String>> deletableByGroupVersion,
    List<String> preferredVersions, List<String> unread, Map<String, List<String>> shortNames) {
  private static final Logger log = LoggerFactory.getLogger(ServedRead.class);
  private static final List<String> DELETABLE_VERBS = List.of("list", "watch", "delete");

  static final ServedRead NONE = new ServedRead(Map.of(), Map.of(), List.of(), List.of(), Map.of());

  /** Reads every group-version; {@code last} is what the last good read said of each. */
  static ServedRead read(DiscoverySource source, ServedRead last) {
    Map<String, List<TrackedKind>> kinds = new LinkedHashMap<>();
    Map<String, Set<String>> deletable = new HashMap<>();
    List<String> preferredVersions = new ArrayList<>();
    Set<String> unread = new TreeSet<>();
    Map<String, List<String>> shortNames = new HashMap<>(last.shortNames);
    readOne(source, last, "", "v1", kinds, deletable, unread, shortNames);
    preferredVersions.add("v1");
    for (APIGroup group : source.groups()) {
      String preferredVersion = group.getPreferredVersion() == null ? null : group.getPreferredVersion().getVersion();
      for (GroupVersionForDiscovery gv : group.getVersions()) {
        readOne(source, last, group.getName(), gv.getVersion(), kinds, deletable, unread, shortNames);
        if (gv.getVersion().equals(preferredVersion)) {
          preferredVersions.add(group.getName() + "/" + gv.getVersion());
        }
      }
    }
    return new ServedRead(kinds, deletable, List.copyOf(preferredVersions), List.copyOf(unread), Map.copyOf(shortNames));
  }

  private static void readOne(DiscoverySource source, ServedRead last, String group, String version,
      Map<String, List<TrackedKind>> into, Map<String, Set<String>> deletable, Set<String> unread,
      Map<String, List<String>> shortNames) {
    String gv = group.isEmpty() ? version : group + "/" + version;
    APIResourceList list;
    try {
      list = source.resources(gv);
    } catch (KubernetesClientException e) {
      List<TrackedKind> before = last.byGroupVersion.get(gv);
      log.warn("discovery failed groupVersion={} code={} message={}; keeping the {} kinds known of it", gv,
          e.getCode(), e.getMessage(), before == null ? 0 : before.size());
      unread.add(gv);
      if (before != null) {
        into.put(gv, before);
        deletable.put(gv, last.deletableByGroupVersion.getOrDefault(gv, Set.of()));
      }
      return;
    }
    List<TrackedKind> kinds = new ArrayList<>();
    Set<String> deletableHere = new HashSet<>();
    if (list != null) {
      for (APIResource r : list.getResources()) {
        if (!r.getName().contains("/")) { // not a subresource
          TrackedKind k = new TrackedKind(group, version, r.getKind(), r.getName(), Boolean.TRUE.equals(r.getNamespaced()));
          kinds.add(k);
          if (r.getShortNames() != null && !r.getShortNames().isEmpty()) {
            shortNames.put(k.groupKind(), List.copyOf(r.getShortNames()));
          }
          if (r.getVerbs() != null && r.getVerbs().containsAll(DELETABLE_VERBS)) {
            deletableHere.add(k.groupKind());
          }
        }
      }
    }
    into.put(gv, List.copyOf(kinds));
    deletable.put(gv, Set.copyOf(deletableHere));
  }
}
