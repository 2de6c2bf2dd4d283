package dev.syncgc.uninstall;

import dev.syncgc.kube.DiscoverySource;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Every resource the API server serves with the {@code list} verb, in every API group, as the
 * built-in garbage collector's GetDeletableResources finds its resources (each group's preferred
 * version first, a resource served in several versions once; Events left out): where the release
 * looks for syncgc's finalizer, whatever the operator tracked. A group-version whose discovery fails
 * (an aggregated API down) is named, never skipped silently: its kinds may hold the finalizer.
 */
final class ListableKinds {
  /**
   * @param kinds the listable kinds, at one served version each
   * @param unreadable group-versions whose resources could not be read, with why
   */
  record Found(List<TrackedKind> kinds, List<String> unreadable) {}

  private ListableKinds() {}

  static Found read(DiscoverySource source) {
    List<TrackedKind> kinds = new ArrayList<>();
    List<String> unreadable = new ArrayList<>();
    Set<String> seen = new HashSet<>(); // group/resource
    read(source, "", "v1", kinds, unreadable, seen);
    for (APIGroup group : source.groups()) {
      List<String> versions = new ArrayList<>();
      if (group.getPreferredVersion() != null && group.getPreferredVersion().getVersion() != null) {
        versions.add(group.getPreferredVersion().getVersion());
      }
      for (GroupVersionForDiscovery gv : group.getVersions()) {
        if (!versions.contains(gv.getVersion())) {
          versions.add(gv.getVersion());
        }
      }
      for (String version : versions) {
        read(source, group.getName(), version, kinds, unreadable, seen);
      }
    }
    return new Found(List.copyOf(kinds), List.copyOf(unreadable));
  }

  private static void read(DiscoverySource source, String group, String version, List<TrackedKind> kinds,
      List<String> unreadable, Set<String> seen) {
    String groupVersion = group.isEmpty() ? version : group + "/" + version;
    APIResourceList list;
    try {
      list = source.resources(groupVersion);
    } catch (KubernetesClientException e) {
      unreadable.add("group-version " + groupVersion + " (discovery failed: "
          + (e.getCode() == 0 ? "no answer" : "HTTP " + e.getCode()) + ")");
      return;
    }
    if (list == null) {
      return;
    }
    for (APIResource r : list.getResources()) {
      if (r.getName().contains("/") || r.getVerbs() == null || !r.getVerbs().contains("list")) {
        continue; // a subresource, or nothing to list
      }
      if (r.getName().equals("events") && (group.isEmpty() || group.equals("events.k8s.io"))) {
        continue; // as the built-in collector: Events are never owners nor opted in
      }
      if (seen.add(group + "/" + r.getName())) {
        kinds.add(new TrackedKind(group, version, r.getKind(), r.getName(), Boolean.TRUE.equals(r.getNamespaced())));
      }
    }
  }

  /** How a kind is named to users: {@code plural.group}, {@code plural} for the core group (as kubectl). */
  static String name(TrackedKind kind) {
    return kind.group().isEmpty() ? kind.plural() : kind.plural() + "." + kind.group();
  }
}
