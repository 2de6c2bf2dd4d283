package dev.syncgc.kube;

import dev.syncgc.core.model.Scope;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the API server serves: the scope of every kind (to judge owner references) and the REST
 * coordinates of kinds to watch. Refreshed at start and, at most every {@code minRefresh}, when a
 * kind is asked for that it does not know (a CRD created since).
 */
public final class Discovery {
  private static final Logger log = LoggerFactory.getLogger(Discovery.class);

  private static final Set<String> EVENTS = Set.of("/Event", "events.k8s.io/Event");

  private final DiscoverySource source;
  private final Duration minRefresh;
  private final Clock clock;
  private volatile Map<String, TrackedKind> preferred = Map.of(); // group/kind -> preferred version
  private volatile Map<String, Scope> scopes = Map.of(); // group/kind -> scope
  private volatile Map<String, List<String>> shortNames = Map.of(); // group/kind -> short names
  private volatile List<TrackedKind> deletable = List.of(); // served now with list, watch and delete
  private ServedRead last = ServedRead.NONE; // the last read, each group-version as last read well
  private final Map<String, TrackedKind> learned = new HashMap<>(); // from the CRD watch
  private volatile Instant lastRefresh = Instant.EPOCH;
  private final AtomicBoolean refreshing = new AtomicBoolean();
  private final Executor background = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "discovery");
    t.setDaemon(true);
    return t;
  });

  private volatile List<String> unread = List.of();
  /** Failed reads: a whole refresh, or one group-version in it ({@code syncgc_discovery_failures_total}). */
  private final AtomicLong failures = new AtomicLong();
  /** What {@link Source#servedDigest} last said at a refresh (null until it said anything). */
  private String lastDigest;

  public Discovery(KubernetesClient client, Duration minRefresh, Clock clock) {
    this(DiscoverySource.of(client), minRefresh, clock);
  }

  Discovery(DiscoverySource source, Duration minRefresh, Clock clock) {
    this.source = source;
    this.minRefresh = minRefresh;
    this.clock = clock;
  }

  /**
   * Reads every group-version again only if the API server's list of groups and versions changed
   * since the last refresh (an aggregated API registered or removed, a CRD group created or deleted):
   * one request instead of one per group-version when nothing did.
   *
   * @return whether discovery was read again
   */
  public boolean refreshIfGroupsChanged() {
    Set<String> served = new HashSet<>(List.of("v1"));
    for (APIGroup group : source.groups()) {
      for (GroupVersionForDiscovery gv : group.getVersions()) {
        served.add(group.getName() + "/" + gv.getVersion());
      }
    }
    String digest = source.servedDigest(); // null: no aggregated discovery, or it failed now: no news
    synchronized (this) {
      if (served.equals(last.byGroupVersion().keySet()) && (digest == null || digest.equals(lastDigest))) {
        return false;
      }
      refresh();
      lastDigest = digest != null ? digest : lastDigest;
    }
    return true;
  }

  /** Reads every served group-version ({@link ServedRead}: one that fails keeps what it last said). */
  public synchronized void refresh() {
    ServedRead read;
    try {
      read = ServedRead.read(source, last);
    } catch (RuntimeException e) {
      failures.incrementAndGet();
      throw e;
    }
    last = read;
    unread = read.unread();
    failures.addAndGet(unread.size());
    Map<String, TrackedKind> kinds = new HashMap<>();
    Map<String, Scope> scope = new HashMap<>();
    read.byGroupVersion().forEach((gv, list) -> {
      for (TrackedKind k : list) {
        scope.put(k.groupKind(), k.namespaced() ? Scope.NAMESPACED : Scope.CLUSTER);
        if (read.preferredVersions().contains(gv) || !kinds.containsKey(k.groupKind())) {
          kinds.put(k.groupKind(), k);
        }
      }
    });
    learned.forEach((gk, k) -> {
      scope.putIfAbsent(gk, k.namespaced() ? Scope.NAMESPACED : Scope.CLUSTER);
      kinds.putIfAbsent(gk, k);
    });
    deletable = servedDeletable(read);
    shortNames = read.shortNames();
    preferred = Map.copyOf(kinds);
    scopes = Map.copyOf(scope);
    lastRefresh = clock.instant();
    log.debug("discovery refreshed kinds={}", scopes.size());
  }

  /**
   * The kinds served now (what the API server's discovery says, not what the CRD watch taught) with
   * list, watch and delete, each at its preferred version.
   */
  private static List<TrackedKind> servedDeletable(ServedRead read) {
    Map<String, TrackedKind> kinds = new HashMap<>();
    read.byGroupVersion().forEach((gv, list) -> {
      Set<String> can = read.deletableByGroupVersion().getOrDefault(gv, Set.of());
      for (TrackedKind k : list) {
        if (can.contains(k.groupKind()) && !EVENTS.contains(k.groupKind())
            && (read.preferredVersions().contains(gv) || !kinds.containsKey(k.groupKind()))) {
          kinds.put(k.groupKind(), k);
        }
      }
    });
    return kinds.values().stream().sorted(java.util.Comparator.comparing(TrackedKind::groupKind)).toList();
  }

  /**
   * The scope of a kind named by an owner reference's apiVersion and kind, from what is known now;
   * never blocks: an unknown kind makes a refresh happen soon, in the background.
   */
  public Scope scopeOf(String apiVersion, String kind) {
    Scope scope = scopes.get(groupOf(apiVersion) + "/" + kind);
    if (scope == null) {
      refreshSoon();
      return Scope.UNKNOWN;
    }
    return scope;
  }

  /**
   * Asks the API server whether it serves this kind now (one discovery request), and learns it if
   * so. For judging a reference to a kind not known yet, before calling it invalid.
   */
  public boolean serves(String apiVersion, String kind) {
    try {
      APIResourceList list = source.resources(apiVersion);
      if (list == null) {
        return false;
      }
      for (APIResource r : list.getResources()) {
        if (r.getKind().equals(kind) && !r.getName().contains("/")) {
          String group = groupOf(apiVersion);
          String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
          learn(new TrackedKind(group, version, kind, r.getName(), Boolean.TRUE.equals(r.getNamespaced())));
          return true;
        }
      }
    } catch (KubernetesClientException e) {
      log.debug("discovery of {} failed code={}", apiVersion, e.getCode());
    }
    return false;
  }

  /** A kind the CRD watch found: known at once, without waiting for a refresh. */
  public synchronized void learn(TrackedKind kind) {
    learned.put(kind.groupKind(), kind);
    Map<String, Scope> s = new HashMap<>(scopes);
    s.put(kind.groupKind(), kind.namespaced() ? Scope.NAMESPACED : Scope.CLUSTER);
    scopes = Map.copyOf(s);
    Map<String, TrackedKind> k = new HashMap<>(preferred);
    k.putIfAbsent(kind.groupKind(), kind);
    preferred = Map.copyOf(k);
  }

  private void refreshSoon() {
    if (refreshing.compareAndSet(false, true)) {
      if (!refreshAllowed()) {
        refreshing.set(false);
        return;
      }
      background.execute(() -> {
        try {
          refresh();
        } catch (RuntimeException e) {
          log.warn("discovery refresh failed error={}", e.toString());
        } finally {
          refreshing.set(false);
        }
      });
    }
  }

  /**
   * Group-versions the API server lists but whose discovery failed at the last refresh (an aggregated
   * API whose service is down, most often): kinds in them that syncgc never learned are not tracked,
   * so it names them wherever it says what it could not check. Read again at every refresh.
   */
  public List<String> unreadGroupVersions() {
    return unread;
  }

  /** Discovery reads that failed since the start: whole refreshes, and group-versions within one. */
  public long failures() {
    return failures.get();
  }

  /**
   * Every kind served with list, watch and delete, at its preferred version, as the built-in
   * collector's GetDeletableResources; Events left out (nothing owns them that matters, and they are
   * the busiest kind of all).
   */
  public List<TrackedKind> deletableKinds() {
    return deletable;
  }

  /** The preferred version of a kind named as the flags name it: "ConfigMap" or "apps/Deployment". */
  public Optional<TrackedKind> find(String groupAndKind) {
    int slash = groupAndKind.lastIndexOf('/');
    String group = slash < 0 ? "" : groupAndKind.substring(0, slash);
    return Optional.ofNullable(preferred.get(group + "/" + groupAndKind.substring(slash + 1)));
  }

  /** Every kind known now, each at its preferred version (a new map after each change). */
  public Map<String, TrackedKind> known() {
    return preferred;
  }

  /** A kind's short names (group/kind: {@code /ConfigMap} → {@code cm}), as discovery last read them. */
  public List<String> shortNames(String groupKind) {
    return shortNames.getOrDefault(groupKind, List.of());
  }

  private boolean refreshAllowed() {
    return Duration.between(lastRefresh, clock.instant()).compareTo(minRefresh) >= 0;
  }

  public static String groupOf(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }
}
