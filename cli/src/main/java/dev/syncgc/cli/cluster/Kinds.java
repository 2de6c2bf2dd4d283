package dev.syncgc.cli.cluster;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.usage.KindNames;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Every kind the API server serves and lets be listed (discovery), and the lookups on them. A
 * snapshot lists the kinds the operator tracks: those with list, watch and delete, Events aside.
 */
public final class Kinds implements KindInfo {
  /** A served kind with its short names; {@code tracked}: the operator tracks it. */
  public record Served(TrackedKind kind, List<String> shortNames, boolean tracked) {}

  /** What the operator's discovery asks of a kind it tracks (its Discovery: list, watch and delete). */
  private static final List<String> TRACKED_VERBS = List.of("list", "watch", "delete");
  /** Never tracked: nothing owns an Event in a way that matters, and they are many. */
  private static final Set<String> EVENTS = Set.of("/Event", "events.k8s.io/Event");

  private final List<Served> served = new ArrayList<>();
  /**
   * Every kind served (not only those with list), without short names: what the operator's
   * {@code syncgc.dev/uses} names are resolved against (its {@code LiveKindInfo}: discovery's kinds).
   */
  private final List<KindNames.NamedKind> usable = new ArrayList<>();

  /**
   * Reads discovery: aggregated, in two requests, where the server serves it; else one request per
   * group-version, a few at a time.
   */
  public Kinds(Cluster cluster) {
    List<Read> reads = AggregatedDiscovery.read(cluster)
        .map(byGroupVersion -> byGroupVersion.entrySet().stream().map(e -> read(e.getKey(), e.getValue())).toList())
        .orElseGet(() -> groupByGroup(cluster));
    for (Read some : reads) {
      served.addAll(some.served());
      usable.addAll(some.usable());
    }
  }

  private static List<Read> groupByGroup(Cluster cluster) {
    List<String> groupVersions = new ArrayList<>(List.of("v1"));
    for (APIGroup g : cluster.call("discovery", () -> cluster.client.getApiGroups()).getGroups()) {
      groupVersions.add(g.getPreferredVersion().getGroupVersion());
    }
    return Parallel.map(groupVersions, gv -> read(cluster, gv));
  }

  /** One group-version's kinds: those served with list, and all of them as names. */
  private record Read(List<Served> served, List<KindNames.NamedKind> usable) {}

  private static Read read(Cluster cluster, String gv) {
    APIResourceList list;
    try {
      list = cluster.client.getApiResources(gv);
    } catch (RuntimeException e) {
      return new Read(List.of(), List.of()); // an aggregated API that is down: its kinds cannot be listed, others can
    }
    return list == null ? new Read(List.of(), List.of()) : read(gv, list.getResources());
  }

  private static Read read(String gv, List<APIResource> resources) {
    String group = gv.contains("/") ? gv.substring(0, gv.indexOf('/')) : "";
    String version = gv.contains("/") ? gv.substring(gv.indexOf('/') + 1) : gv;
    List<Served> out = new ArrayList<>();
    List<KindNames.NamedKind> usable = new ArrayList<>();
    for (APIResource r : resources) {
      if (r.getName().contains("/")) {
        continue; // a subresource
      }
      TrackedKind k = new TrackedKind(group, version, r.getKind(), r.getName(), Boolean.TRUE.equals(r.getNamespaced()));
      usable.add(usable(k, r.getShortNames() == null ? List.of() : r.getShortNames()));
      if (r.getVerbs() != null && r.getVerbs().contains("list")) {
        out.add(new Served(k, r.getShortNames() == null ? List.of() : r.getShortNames(),
            r.getVerbs().containsAll(TRACKED_VERBS) && !EVENTS.contains(k.groupKind())));
      }
    }
    return new Read(out, usable);
  }

  /** Kinds known already (tests, tools): those served with list. */
  public Kinds(List<Served> served) {
    this.served.addAll(served);
    served.forEach(s -> usable.add(usable(s.kind(), s.shortNames())));
  }

  private static KindNames.NamedKind usable(TrackedKind k, List<String> shortNames) {
    return new KindNames.NamedKind(k.group(), k.kind(), k.plural(), shortNames, k.namespaced());
  }

  /** The kinds the operator tracks, so the kinds a snapshot lists. */
  public List<TrackedKind> tracked() {
    return served.stream().filter(Served::tracked).map(Served::kind).toList();
  }

  /** Every kind served with list, tracked or not (completion offers them all, as kubectl does). */
  public List<Served> served() {
    return List.copyOf(served);
  }

  /**
   * These kinds, less those that could not be listed: an owner of a kind not listed is not known to
   * be gone, so it counts as keeping (as an owner of a kind not served does), never as absent.
   */
  public KindInfo except(Collection<TrackedKind> unlisted) {
    Set<String> gone = new HashSet<>();
    unlisted.forEach(k -> gone.add(k.groupKind()));
    return new KindInfo() {
      @Override
      public Scope scope(OwnerLink link) {
        return Kinds.this.scope(link);
      }

      @Override
      public boolean tracked(OwnerLink link) {
        return Kinds.this.tracked(link) && !gone.contains(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
      }

      @Override
      public KindNames.Resolution resolve(String name) {
        return Kinds.this.resolve(name); // a kind not listed is still named: its objects are only not seen
      }
    };
  }

  /**
   * The kind a user names as kubectl accepts it: kind, plural or short name, any case, optionally
   * {@code .group} (e.g. {@code widgets.test.syncgc.dev}); the operator's rule ({@link KindNames}).
   */
  public TrackedKind named(String name) {
    KindNames.Resolution r = KindNames.resolve(served.stream().map(s -> new KindNames.NamedKind(s.kind().group(),
        s.kind().kind(), s.kind().plural(), s.shortNames(), s.kind().namespaced())).toList(), name);
    if (r.found()) {
      return served.stream().map(Served::kind).filter(k -> k.groupKind().equals(r.kind().groupKind()))
          .findFirst().orElseThrow();
    }
    throw new CliException(r.error().startsWith("the server has no kind") ? ExitCodes.NOT_FOUND : ExitCodes.USAGE,
        r.error());
  }

  /**
   * For the graph: what a user's {@code syncgc.dev/uses} names, as the operator resolves it (its
   * {@code LiveKindInfo}): among every kind served, by kind, resource or short name.
   */
  @Override
  public KindNames.Resolution resolve(String name) {
    return KindNames.resolve(usable, name);
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

  /** Only a kind a snapshot lists can tell an owner gone; an owner of another kind is presumed to be there. */
  @Override
  public boolean tracked(OwnerLink link) {
    String group = Discovery.groupOf(link.apiVersion());
    return served.stream().anyMatch(s -> s.tracked() && s.kind().group().equals(group)
        && s.kind().kind().equals(link.kind()));
  }
}
