package dev.syncgc.core;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.usage.KindNames;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Test fixtures: {@code obj("a").ownedBy("b").deleting().finalizers(...).build()}. The uid doubles as
 * the name; objects are namespaced Widgets in {@link #NAMESPACE} unless told otherwise.
 */
public final class TestObjects {
  public static final String NAMESPACE = "default";
  public static final Instant DELETED_AT = Instant.parse("2024-01-01T00:00:00Z");

  private TestObjects() {}

  public static Builder obj(String uid) {
    return new Builder(uid);
  }

  /** A reference to a namespaced, tracked Widget. */
  public static OwnerLink link(String uid) {
    return link(uid, Scope.NAMESPACED, true);
  }

  /** A reference whose kind {@link #KINDS} knows to have this scope and to be tracked or not. */
  public static OwnerLink link(String uid, Scope scope, boolean tracked) {
    String kind = switch (scope) {
      case NAMESPACED -> "Widget";
      case CLUSTER -> "ClusterWidget";
      case UNKNOWN -> "UnservedWidget";
    };
    return new OwnerLink(uid, "example.com/v1", tracked ? kind : "Untracked" + kind, uid);
  }

  /**
   * The kinds of the test world, told by their names: {@code Widget} (namespaced),
   * {@code ClusterWidget} (cluster-scoped), {@code UnservedWidget} (not served); prefixed
   * {@code Untracked} when syncgc does not watch them.
   */
  public static final KindInfo KINDS = new KindInfo() {
    @Override
    public Scope scope(OwnerLink link) {
      String kind = link.kind().replaceFirst("^Untracked", "");
      return switch (kind) {
        case "Widget" -> Scope.NAMESPACED;
        case "ClusterWidget" -> Scope.CLUSTER;
        default -> Scope.UNKNOWN;
      };
    }

    @Override
    public boolean tracked(OwnerLink link) {
      return !link.kind().startsWith("Untracked");
    }

    @Override
    public KindNames.Resolution resolve(String name) {
      return KindNames.resolve(NAMED_KINDS, name);
    }
  };

  /**
   * The kinds a user may name in {@code syncgc.dev/uses}: Widget and ClusterWidget (example.com),
   * ConfigMap (core), and a Gadget served by two groups (example.com and other.example.com).
   */
  public static final List<KindNames.NamedKind> NAMED_KINDS = List.of(
      new KindNames.NamedKind("example.com", "Widget", "widgets", List.of("wd"), true),
      new KindNames.NamedKind("example.com", "ClusterWidget", "clusterwidgets", List.of(), false),
      new KindNames.NamedKind("", "ConfigMap", "configmaps", List.of("cm"), true),
      new KindNames.NamedKind("example.com", "Gadget", "gadgets", List.of(), true),
      new KindNames.NamedKind("other.example.com", "Gadget", "gadgets", List.of(), true));

  public static DependencyGraph graph() {
    return new DependencyGraph(KINDS);
  }

  public static DependencyGraph graphOf(ObjectMetadata... objects) {
    DependencyGraph graph = graph();
    for (ObjectMetadata o : objects) {
      graph.upsert(o);
    }
    return graph;
  }

  public static final class Builder {
    private final String uid;
    private String name;
    private String apiVersion = "example.com/v1";
    private String kind = "Widget";
    private String namespace = NAMESPACE;
    private long resourceVersion = 1;
    private final List<OwnerLink> owners = new ArrayList<>();
    private final List<String> finalizers = new ArrayList<>();
    private Instant deletionTimestamp;
    private Long gracePeriodSeconds;
    private final Map<String, String> annotations = new HashMap<>();

    private Builder(String uid) {
      this.uid = uid;
    }

    /** Another name than the uid. */
    public Builder name(String name) {
      this.name = name;
      return this;
    }

    /** Another kind than {@code example.com/v1 Widget} (the kinds {@link #KINDS} knows are by kind name). */
    public Builder kind(String apiVersion, String kind) {
      this.apiVersion = apiVersion;
      this.kind = kind;
      return this;
    }

    public Builder namespace(String namespace) {
      this.namespace = namespace;
      return this;
    }

    public Builder clusterScoped() {
      return namespace(null);
    }

    public Builder rv(long resourceVersion) {
      this.resourceVersion = resourceVersion;
      return this;
    }

    /** Namespaced, tracked owners. */
    public Builder ownedBy(String... ownerUids) {
      for (String owner : ownerUids) {
        owners.add(link(owner));
      }
      return this;
    }

    public Builder ownedBy(OwnerLink... links) {
      owners.addAll(List.of(links));
      return this;
    }

    public Builder ownedByUntracked(String ownerUid) {
      return ownedBy(link(ownerUid, Scope.NAMESPACED, false));
    }

    public Builder deleting() {
      return deletedAt(DELETED_AT);
    }

    public Builder deletedAt(Instant at) {
      deletionTimestamp = at;
      return this;
    }

    public Builder gracePeriod(long seconds) {
      gracePeriodSeconds = seconds;
      return this;
    }

    public Builder finalizers(String... names) {
      finalizers.addAll(List.of(names));
      return this;
    }

    public Builder syncFinalizer() {
      return finalizers(Names.FINALIZER);
    }

    public Builder annotate(String key, String value) {
      annotations.put(key, value);
      return this;
    }

    /** {@code syncgc.dev/uses}: the objects it uses, as a user names them. */
    public Builder uses(String value) {
      return annotate(Names.USES, value);
    }

    public Builder deadline(Instant deadline) {
      return annotate(Names.DEADLINE, deadline.toString());
    }

    public ObjectMetadata build() {
      return new ObjectMetadata(
          new ObjectRef(apiVersion, kind, namespace, name == null ? uid : name, uid),
          resourceVersion,
          owners,
          finalizers,
          deletionTimestamp,
          gracePeriodSeconds,
          annotations,
          Map.of());
    }
  }
}
