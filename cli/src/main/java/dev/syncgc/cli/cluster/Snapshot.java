package dev.syncgc.cli.cluster;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.CallCounts;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.policy.LoadedPolicies;
import dev.syncgc.policy.PolicyStore;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects around one target, read once: every kind the operator tracks in the target's namespace plus the
 * cluster-scoped ones (a cluster-scoped target: every namespace), as metadata the core understands,
 * with the policies in force. Kinds that could not be listed are named, never silently skipped.
 */
public final class Snapshot {
  private static final MetadataReader READER = new MetadataReader();

  /** A kind that could not be listed, and the API server's answer (403: forbidden; -1: no answer). */
  public record Unlisted(TrackedKind kind, int code) {
    /** {@code plural.group (why)}, for scripts. */
    @Override
    public String toString() {
      return kind.plural() + (kind.group().isEmpty() ? "" : "." + kind.group()) + " ("
          + (code == 403 ? "forbidden" : code < 0 ? "no answer" : "list failed: " + code) + ")";
    }
  }

  public final Kinds kinds;
  /** The object asked about; null for a snapshot of everything. */
  public final ObjectMetadata target;
  public final Map<String, ObjectMetadata> objects = new LinkedHashMap<>();
  public final Map<String, Instant> created = new HashMap<>();
  /** Kinds that could not be listed, with why: objects of those kinds are not shown, owners of them count as there. */
  public final List<Unlisted> unlisted = new ArrayList<>();
  /** The policies as the operator reads them: the invalid ones (named, not used), or why none could be read. */
  public final LoadedPolicies loadedPolicies;
  private final PolicyStore policies;

  private Snapshot(Kinds kinds, ObjectMetadata target, LoadedPolicies loadedPolicies, PolicyStore policies) {
    this.kinds = kinds;
    this.target = target;
    this.loadedPolicies = loadedPolicies;
    this.policies = policies;
  }

  /** A snapshot about {@code target} (null: everything), with the policies as the operator reads them. */
  private static Snapshot of(Cluster cluster, Kinds kinds, ObjectMetadata target) {
    LoadedPolicies loaded = LoadedPolicies.load(cluster.client);
    return new Snapshot(kinds, target, loaded, policies(cluster, loaded));
  }

  /** Objects already read, about {@code target} (null: everything), with no policy: for tests and tools. */
  public static Snapshot of(Kinds kinds, ObjectMetadata target, Collection<ObjectMetadata> objects) {
    Snapshot s = new Snapshot(kinds, target, new LoadedPolicies(List.of(), Map.of(), null),
        new PolicyStore(ns -> Map.of(), List::of, () -> { }));
    objects.forEach(o -> s.objects.put(o.uid(), o));
    return s;
  }

  /** @param kindAndName {@code KIND/NAME}, as kubectl takes it (the commands turn {@code KIND NAME} into it) */
  public static Snapshot load(Cluster cluster, String kindAndName) {
    int slash = kindAndName.indexOf('/');
    if (slash <= 0 || slash == kindAndName.length() - 1) {
      throw new CliException(ExitCodes.USAGE, "expected KIND/NAME or KIND NAME (e.g. widget/my-app or widget my-app), got \"" + kindAndName + "\"");
    }
    Kinds kinds = new Kinds(cluster);
    TrackedKind kind = kinds.named(kindAndName.substring(0, slash));
    String name = kindAndName.substring(slash + 1);
    String where = kind.namespaced() ? " in namespace " + cluster.namespace : "";
    // A list by name, not a get: the chart's plugin role grants list on every kind but get on none,
    // since get on "*" would reach subresources (pods/exec, pods/proxy, nodes/proxy).
    var all = cluster.client.genericKubernetesResources(kind.context());
    var resources = (kind.namespaced() ? all.inNamespace(cluster.namespace) : all).withField("metadata.name", name);
    GenericKubernetesResource found = cluster.call("list " + kind.plural() + " named " + name + where,
        () -> resources.list().getItems().stream().findFirst().orElse(null));
    if (found == null) {
      throw new CliException(ExitCodes.NOT_FOUND, kind.kind() + " " + name + " not found" + where
          + (kind.namespaced() ? " (use -n NAMESPACE)" : ""));
    }
    return around(cluster, kinds, kind, found);
  }

  /**
   * The objects around {@code found} (an object of {@code kind} just read), reusing the kinds
   * discovered before: what {@code delete} takes once a second while it watches.
   */
  public static Snapshot around(Cluster cluster, Kinds kinds, TrackedKind kind, GenericKubernetesResource found) {
    Snapshot s = of(cluster, kinds, READER.read(kind, found));
    s.read(cluster, kind.namespaced() ? cluster.namespace : null);
    s.objects.put(s.target.uid(), s.target);
    return s;
  }

  /**
   * Every object of every tracked kind in {@code namespace} (null: in every namespace) and every
   * cluster-scoped one (for {@code status}).
   */
  public static Snapshot everything(Cluster cluster, String namespace) {
    Snapshot s = of(cluster, new Kinds(cluster), null);
    s.read(cluster, namespace);
    return s;
  }

  private static PolicyStore policies(Cluster cluster, LoadedPolicies loaded) {
    Map<String, Map<String, String>> namespaceLabels = new HashMap<>();
    PolicyStore policies = new PolicyStore(ns -> namespaceLabels.computeIfAbsent(ns, n -> labels(cluster, n)),
        List::of, () -> { });
    loaded.valid().forEach(policies::put); // an invalid policy is used by no one
    return policies;
  }

  /**
   * Lists every tracked kind, metadata only, a few kinds at a time: namespaced ones in
   * {@code namespace} (null: all), cluster-scoped ones all.
   */
  private void read(Cluster cluster, String namespace) {
    KubeApi api = new KubeApi(cluster.client, RateLimiter.unlimited(), CallCounts.NONE);
    List<Listed> listed = Parallel.map(kinds.tracked(), k -> list(api, k, namespace));
    for (Listed l : listed) {
      if (l.code != 0) {
        unlisted.add(new Unlisted(l.kind, l.code));
        continue;
      }
      for (GenericKubernetesResource item : l.items) {
        ObjectMetadata m = READER.read(l.kind, item);
        objects.put(m.uid(), m);
        String at = item.getMetadata().getCreationTimestamp();
        if (at != null) {
          created.put(m.uid(), Instant.parse(at));
        }
      }
    }
  }

  /** One kind's objects, or the code of the answer that refused them. */
  private record Listed(TrackedKind kind, List<GenericKubernetesResource> items, int code) {}

  private static Listed list(KubeApi api, TrackedKind k, String namespace) {
    List<GenericKubernetesResource> items = new ArrayList<>();
    try {
      api.listAllMetadata(k, k.namespaced() ? namespace : null, item -> {
        if (item.getMetadata() != null && item.getMetadata().getUid() != null) {
          items.add(item); // not virtual objects some APIs list (ComponentStatus): nothing can own or be owned by them
        }
      });
      return new Listed(k, items, 0);
    } catch (KubernetesClientException e) {
      return new Listed(k, List.of(), e.getCode() <= 0 ? -1 : e.getCode());
    }
  }

  private static Map<String, String> labels(Cluster cluster, String namespace) {
    try {
      Namespace ns = cluster.client.namespaces().withName(namespace).get();
      return ns == null || ns.getMetadata().getLabels() == null ? Map.of() : ns.getMetadata().getLabels();
    } catch (KubernetesClientException e) {
      return Map.of();
    }
  }

  /** The object's effective settings, as the operator computes them (annotations, else the deciding policy). */
  public DeletionSettings settingsOf(ObjectMetadata object) {
    return policies.settingsOf(object);
  }

  /** The object's settings in force, worked out as the operator does ({@link SettingsInForce}). */
  public SettingsInForce inForce(ObjectMetadata object) {
    return SettingsInForce.resolver(policies::settingsOf, objects::get).apply(object);
  }

  /** The policy that decides for the object, if any. */
  public java.util.Optional<String> policyOf(ObjectMetadata object) {
    return policies.deciding(object);
  }

  /**
   * Why a syncgc cascade through the object would keep it (SPEC "Keep one dependent"), or null when it
   * would not: its {@code syncgc.dev/keep} annotation (an invalid value counts as true), or the policy
   * deciding for it.
   */
  public String keptBecause(ObjectMetadata object) {
    if (!settingsOf(object).keep()) {
      return null;
    }
    String value = object.annotation(dev.syncgc.core.model.Names.KEEP);
    if (value == null) {
      return "kept: GarbageCollectionPolicy " + policyOf(object).orElse("?") + " (keep: true)";
    }
    return "kept: " + dev.syncgc.core.model.Names.KEEP + "=\"" + value + "\""
        + (value.equals("true") ? "" : " (invalid: counts as true)");
  }

  /** The kinds as the core sees them here: one not listed keeps what it owns (see {@link Kinds#except}). */
  public KindInfo kindInfo() {
    return kinds.except(unlisted.stream().map(Unlisted::kind).toList());
  }

  /** A fresh graph of every object read. */
  public DependencyGraph graph() {
    DependencyGraph g = new DependencyGraph(kindInfo());
    g.usersFrom(o -> inForce(o).usersFrom()); // users-from with the policies, as the operator's graph
    objects.values().forEach(g::upsert);
    return g;
  }
}
