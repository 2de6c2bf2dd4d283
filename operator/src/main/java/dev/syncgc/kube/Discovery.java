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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the API server serves: the scope of every kind (to judge owner references) and the REST
 * coordinates of kinds to watch. Refreshed at start and, at most every {@code minRefresh}, when a
 * kind is asked for that it does not know (a CRD created since).
 */
public final class Discovery {
  private static final Logger log = LoggerFactory.getLogger(Discovery.class);

  private final KubernetesClient client;
  private final Duration minRefresh;
  private final Clock clock;
  private volatile Map<String, TrackedKind> preferred = Map.of(); // group/kind -> preferred version
  private volatile Map<String, Scope> scopes = Map.of(); // group/kind -> scope
  private volatile Instant lastRefresh = Instant.EPOCH;
  private final AtomicBoolean refreshing = new AtomicBoolean();
  private final Executor background = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "discovery");
    t.setDaemon(true);
    return t;
  });

  public Discovery(KubernetesClient client, Duration minRefresh, Clock clock) {
    this.client = client;
    this.minRefresh = minRefresh;
    this.clock = clock;
  }

  public synchronized void refresh() {
    Map<String, TrackedKind> kinds = new HashMap<>();
    Map<String, Scope> scope = new HashMap<>();
    read("", "v1", kinds, scope, true);
    for (APIGroup group : client.getApiGroups().getGroups()) {
      String preferredVersion = group.getPreferredVersion() == null ? null
          : group.getPreferredVersion().getVersion();
      for (GroupVersionForDiscovery gv : group.getVersions()) {
        read(group.getName(), gv.getVersion(), kinds, scope, gv.getVersion().equals(preferredVersion));
      }
    }
    preferred = Map.copyOf(kinds);
    scopes = Map.copyOf(scope);
    lastRefresh = clock.instant();
    log.debug("discovery refreshed kinds={}", scopes.size());
  }

  private void read(String group, String version, Map<String, TrackedKind> kinds,
      Map<String, Scope> scope, boolean isPreferred) {
    APIResourceList list;
    try {
      list = client.getApiResources(group.isEmpty() ? version : group + "/" + version);
    } catch (KubernetesClientException e) {
      log.warn("discovery failed groupVersion={}/{} code={} message={}", group, version, e.getCode(),
          e.getMessage());
      return;
    }
    if (list == null) {
      return;
    }
    for (APIResource r : list.getResources()) {
      if (r.getName().contains("/")) {
        continue; // subresource
      }
      String key = group + "/" + r.getKind();
      scope.put(key, Boolean.TRUE.equals(r.getNamespaced()) ? Scope.NAMESPACED : Scope.CLUSTER);
      if (isPreferred || !kinds.containsKey(key)) {
        kinds.put(key, new TrackedKind(group, version, r.getKind(), r.getName(),
            Boolean.TRUE.equals(r.getNamespaced())));
      }
    }
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
      APIResourceList list = client.getApiResources(apiVersion);
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

  /** The preferred version of a kind named as the flags name it: "ConfigMap" or "apps/Deployment". */
  public Optional<TrackedKind> find(String groupAndKind) {
    int slash = groupAndKind.lastIndexOf('/');
    String group = slash < 0 ? "" : groupAndKind.substring(0, slash);
    return Optional.ofNullable(preferred.get(group + "/" + groupAndKind.substring(slash + 1)));
  }

  private boolean refreshAllowed() {
    return Duration.between(lastRefresh, clock.instant()).compareTo(minRefresh) >= 0;
  }

  public static String groupOf(String apiVersion) {
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }
}
