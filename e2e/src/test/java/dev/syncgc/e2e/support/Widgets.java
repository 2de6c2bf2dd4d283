package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Creates test objects of the {@link TestCrds} kinds, e.g.
 * {@code Widgets.create(client, ns, "b").ownedBy(a).annotate(k, v).finalizer(f).apply()}, or
 * {@code Widgets.create(client, ns, "a").synchronous().applyAndAwaitFinalizer()} for an owner the
 * operator has taken in. Installs the CRDs on first use.
 */
public final class Widgets {
  private Widgets() {}

  /** A namespaced {@code Widget}. */
  public static Builder create(KubernetesClient client, String namespace, String name) {
    return new Builder(client, TestCrds.WIDGET, namespace, name);
  }

  /** A cluster-scoped {@code ClusterWidget}. */
  public static Builder createCluster(KubernetesClient client, String name) {
    return new Builder(client, TestCrds.CLUSTER_WIDGET, null, name);
  }

  public static Resource<GenericKubernetesResource> widget(
      KubernetesClient client, String namespace, String name) {
    TestCrds.install(client);
    return TestCrds.widgets(client).inNamespace(namespace).withName(name);
  }

  public static Resource<GenericKubernetesResource> clusterWidget(KubernetesClient client, String name) {
    TestCrds.install(client);
    return TestCrds.clusterWidgets(client).withName(name);
  }

  /** The current state of {@code object} in the store, or null if it is gone (any kind). */
  public static GenericKubernetesResource reload(KubernetesClient client, HasMetadata object) {
    var resources = client.genericKubernetesResources(object.getApiVersion(), object.getKind());
    String namespace = object.getMetadata().getNamespace();
    return (namespace == null ? resources.withName(object.getMetadata().getName())
        : resources.inNamespace(namespace).withName(object.getMetadata().getName())).get();
  }

  /** An owner reference to an existing object (it must carry apiVersion, kind, name and uid). */
  public static OwnerReference ownerReference(HasMetadata owner) {
    return ownerReference(owner, null, null);
  }

  public static OwnerReference ownerReference(
      HasMetadata owner, Boolean blockOwnerDeletion, Boolean controller) {
    if (owner.getMetadata().getUid() == null) {
      throw new IllegalArgumentException("owner " + owner.getMetadata().getName()
          + " has no uid: pass the object returned by the API server");
    }
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withBlockOwnerDeletion(blockOwnerDeletion)
        .withController(controller)
        .build();
  }

  /** Collects metadata and spec, then {@link #apply()} creates the object. */
  public static final class Builder {
    private final KubernetesClient client;
    private final ResourceDefinitionContext kind;
    private final String namespace;
    private final String name;
    private final Map<String, String> labels = new LinkedHashMap<>();
    private final Map<String, String> annotations = new LinkedHashMap<>();
    private final List<String> finalizers = new ArrayList<>();
    private final List<OwnerReference> ownerReferences = new ArrayList<>();
    private final Map<String, Object> spec = new LinkedHashMap<>();

    private Builder(KubernetesClient client, ResourceDefinitionContext kind, String namespace, String name) {
      this.client = client;
      this.kind = kind;
      this.namespace = namespace;
      this.name = name;
    }

    public Builder label(String key, String value) {
      labels.put(key, value);
      return this;
    }

    public Builder labels(Map<String, String> values) {
      labels.putAll(values);
      return this;
    }

    public Builder annotate(String key, String value) {
      annotations.put(key, value);
      return this;
    }

    public Builder annotations(Map<String, String> values) {
      annotations.putAll(values);
      return this;
    }

    /** Opts the object in: {@code syncgc.dev/propagation: Synchronous}. */
    public Builder synchronous() {
      return annotate(SpecNames.PROPAGATION, SpecNames.SYNCHRONOUS);
    }

    public Builder finalizer(String finalizer) {
      finalizers.add(finalizer);
      return this;
    }

    public Builder ownedBy(HasMetadata owner) {
      return ownedBy(ownerReference(owner));
    }

    public Builder ownedBy(HasMetadata owner, boolean blockOwnerDeletion, boolean controller) {
      return ownedBy(ownerReference(owner, blockOwnerDeletion, controller));
    }

    /** Any reference, e.g. to an owner that does not exist (or no longer has this uid). */
    public Builder ownedBy(OwnerReference reference) {
      ownerReferences.add(reference);
      return this;
    }

    public Builder spec(String key, Object value) {
      spec.put(key, value);
      return this;
    }

    /** The object as it would be sent, without creating it. */
    public GenericKubernetesResource build() {
      return new GenericKubernetesResourceBuilder()
          .withApiVersion(TestCrds.API_VERSION)
          .withKind(kind.getKind())
          .withNewMetadata()
              .withName(name)
              .withNamespace(namespace)
              .withLabels(labels.isEmpty() ? null : labels)
              .withAnnotations(annotations.isEmpty() ? null : annotations)
              .withFinalizers(finalizers.isEmpty() ? null : finalizers)
              .withOwnerReferences(ownerReferences.isEmpty() ? null : ownerReferences)
          .endMetadata()
          .addToAdditionalProperties("spec", spec)
          .build();
    }

    /** Creates the object (it must not exist yet) and returns it as stored, with its uid. */
    public GenericKubernetesResource apply() {
      TestCrds.install(client);
      return objects().resource(build()).create();
    }

    /**
     * Creates the object and waits (up to {@link ObjectAwaits#FINALIZER_DEADLINE}) until the
     * operator has put its finalizer on it; returns it as stored then.
     */
    public GenericKubernetesResource applyAndAwaitFinalizer() {
      return applyAndAwaitFinalizer(ObjectAwaits.FINALIZER_DEADLINE);
    }

    /** Creates the object and waits until the operator has put its finalizer on it. */
    public GenericKubernetesResource applyAndAwaitFinalizer(Duration deadline) {
      apply();
      return ObjectAwaits.awaitFinalizer(() -> objects().withName(name).get(), SpecNames.FINALIZER,
          true, deadline);
    }

    private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList,
        Resource<GenericKubernetesResource>> objects() {
      var resources = client.genericKubernetesResources(kind);
      return namespace == null ? resources : resources.inNamespace(namespace);
    }
  }
}
