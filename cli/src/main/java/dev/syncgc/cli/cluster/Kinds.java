package dev.syncgc.cli.cluster;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Every kind the API server serves and lets be listed (discovery), and the lookups on them. */
public final class Kinds implements KindInfo {
  /** A served kind with its short names. */
  public record Served(TrackedKind kind, List<String> shortNames) {}

  private final List<Served> served = new ArrayList<>();

  public Kinds(Cluster cluster) {
    List<String> groupVersions = new ArrayList<>(List.of("v1"));
    for (APIGroup g : cluster.call("discovery", () -> cluster.client.getApiGroups()).getGroups()) {
      groupVersions.add(g.getPreferredVersion().getGroupVersion());
    }
    for (String gv : groupVersions) {
      APIResourceList list;
      try {
        list = cluster.client.getApiResources(gv);
      } catch (RuntimeException e) {
        continue; // an aggregated API that is down: its kinds cannot be listed, others can
      }
      if (list == null) {
        continue;
      }
      String group = gv.contains("/") ? gv.substring(0, gv.indexOf('/')) : "";
      String version = gv.contains("/") ? gv.substring(gv.indexOf('/') + 1) : gv;
      for (APIResource r : list.getResources()) {
        if (!r.getName().contains("/") && r.getVerbs() != null && r.getVerbs().contains("list")) {
          served.add(new Served(new TrackedKind(group, version, r.getKind(), r.getName(), Boolean.TRUE.equals(r.getNamespaced())),
              r.getShortNames() == null ? List.of() : r.getShortNames()));
        }
      }
    }
  }

  Kinds(List<Served> served) {
    this.served.addAll(served);
  }

  public List<TrackedKind> all() {
    return served.stream().map(Served::kind).toList();
  }

  /**
   * The kind a user names as kubectl accepts it: kind, plural or short name, any case, optionally
   * {@code .group} (e.g. {@code widgets.test.syncgc.dev}).
   */
  public TrackedKind resolve(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    List<TrackedKind> found = new ArrayList<>();
    for (Served s : served) {
      TrackedKind k = s.kind();
      List<String> names = new ArrayList<>(List.of(k.kind().toLowerCase(Locale.ROOT), k.plural()));
      names.addAll(s.shortNames());
      for (String candidate : names) {
        if (n.equals(candidate) || (!k.group().isEmpty() && n.equals(candidate + "." + k.group()))) {
          found.add(k);
          break;
        }
      }
    }
    if (found.isEmpty()) {
      throw new CliException(ExitCodes.NOT_FOUND, "the server has no kind \"" + name + "\" (see kubectl api-resources)");
    }
    // as kubectl: the core group wins over others of the same name
    return found.stream().filter(k -> k.group().isEmpty()).findFirst().orElse(found.get(0));
  }

  public Optional<TrackedKind> find(String apiVersion, String kind) {
    String group = apiVersion.contains("/") ? apiVersion.substring(0, apiVersion.indexOf('/')) : "";
    return served.stream().map(Served::kind).filter(k -> k.group().equals(group) && k.kind().equals(kind)).findFirst();
  }

  @Override
  public Scope scope(OwnerLink link) {
    return find(link.apiVersion(), link.kind()).map(k -> k.namespaced() ? Scope.NAMESPACED : Scope.CLUSTER)
        .orElse(Scope.UNKNOWN);
  }

  @Override
  public boolean tracked(OwnerLink link) {
    return find(link.apiVersion(), link.kind()).isPresent();
  }
}
