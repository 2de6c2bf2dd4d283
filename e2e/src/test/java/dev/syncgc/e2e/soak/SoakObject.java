package dev.syncgc.e2e.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One object the soak creates, as the model knows it: kind, place, owners, and what holds it. */
final class SoakObject {

  /** The kinds the soak uses: two CRDs (namespaced and cluster-scoped) and two built-in kinds. */
  enum Kind {
    WIDGET("test.syncgc.dev/v1", "Widget", "test.syncgc.dev/widgets", true),
    CLUSTER_WIDGET("test.syncgc.dev/v1", "ClusterWidget", "test.syncgc.dev/clusterwidgets", false),
    CONFIGMAP("v1", "ConfigMap", "configmaps", true),
    POD("v1", "Pod", "pods", true);

    final String apiVersion;
    final String kind;
    /** etcd key prefix under /registry/. */
    final String registry;
    final boolean namespaced;

    Kind(String apiVersion, String kind, String registry, boolean namespaced) {
      this.apiVersion = apiVersion;
      this.kind = kind;
      this.registry = registry;
      this.namespaced = namespaced;
    }
  }

  /** An owner reference Kubernetes cannot resolve: what it names, and why it is invalid. */
  record Unresolvable(String apiVersion, String kind, String name, String uid, String why) {}

  /** The finalizer of "another controller": the soak removes it a while after the object is marked deleted. */
  static final String HOLD = "soak.syncgc.dev/hold";

  final Kind kind;
  final String namespace;
  final String name;
  /** Owners named by valid references, in order. */
  final List<SoakObject> owners = new ArrayList<>();
  /**
   * An owner named by a reference Kubernetes considers invalid (a namespaced owner in another
   * namespace), or null. kube-controller-manager treats such an owner as absent and removes the
   * reference within milliseconds once a solid owner is seen, so the generator puts it only on
   * objects no cascade reaches (the model could not say whether a cascade sees it).
   */
  SoakObject invalidOwner;
  /**
   * References Kubernetes can never resolve (an unknown kind; a namespaced owner of a cluster-scoped
   * object): kube-controller-manager neither collects such an object nor removes any of its
   * references, and syncgc never deletes it through another owner (SPEC "Coexistence with
   * Kubernetes"). Kept on the object for good: they name nothing that exists.
   */
  final List<Unresolvable> unresolvable = new ArrayList<>();
  /** {@code syncgc.dev/deletion-wave}, or null. */
  Integer wave;
  /**
   * What it names in {@code syncgc.dev/uses} (SPEC "In use"), in the order of the annotation, which
   * the generator writes into {@link #annotations} with them.
   */
  final List<SoakObject> uses = new ArrayList<>();
  /** Held by {@link #HOLD} for this long after it is marked deleted; negative: not held. */
  long holdMillis = -1;
  final Map<String, String> annotations = new LinkedHashMap<>();
  final Map<String, String> labels = new LinkedHashMap<>();
  /** Set once created. */
  volatile String uid;

  SoakObject(Kind kind, String namespace, String name) {
    this.kind = kind;
    this.namespace = kind.namespaced ? namespace : null;
    this.name = name;
  }

  /** The key of the object in etcd: DELETE events of the store carry it with their revision. */
  String etcdKey() {
    return "/registry/" + kind.registry + "/" + (namespace == null ? "" : namespace + "/") + name;
  }

  /** Carries a reference Kubernetes considers invalid: no cascade through another owner deletes it. */
  boolean invalidReference() {
    return invalidOwner != null || !unresolvable.isEmpty();
  }

  boolean held() {
    return holdMillis >= 0;
  }

  @Override
  public String toString() {
    return kind.kind + "/" + (namespace == null ? "" : namespace + "/") + name;
  }
}
