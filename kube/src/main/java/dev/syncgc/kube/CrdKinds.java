package dev.syncgc.kube;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionVersion;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches CustomResourceDefinitions: every established CRD's kind is tracked (at its storage
 * version), one created later within moments, without a restart; a deleted CRD's kind is dropped
 * (and its objects leave the graph: the API server deleted them all before the CRD went).
 * A CRD being deleted stays tracked until it is gone: the API server deletes its objects first, and
 * those carrying the syncgc finalizer are collected and released like any other owner (untracking
 * the kind then would leave them, and the CRD, Terminating forever).
 */
public final class CrdKinds implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CrdKinds.class);

  private final SharedIndexInformer<CustomResourceDefinition> informer;

  public CrdKinds(KubernetesClient client, Consumer<TrackedKind> track, Consumer<TrackedKind> untrack) {
    informer = client.apiextensions().v1().customResourceDefinitions().runnableInformer(0);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(CustomResourceDefinition crd) {
        kindOf(crd).ifPresent(track);
      }

      @Override
      public void onUpdate(CustomResourceDefinition oldCrd, CustomResourceDefinition crd) {
        kindOf(crd).ifPresent(track);
      }

      @Override
      public void onDelete(CustomResourceDefinition crd, boolean finalStateUnknown) {
        kindOf(crd).or(() -> anyKindOf(crd)).ifPresent(untrack);
      }
    });
  }

  public CompletableFuture<Void> start() {
    return informer.start().toCompletableFuture();
  }

  /** The kind of an established CRD (terminating or not), at its storage version. */
  public static Optional<TrackedKind> kindOf(CustomResourceDefinition crd) {
    return established(crd) ? anyKindOf(crd) : Optional.empty();
  }

  /** Whether the API server serves the CRD's kind: its {@code Established} condition is true. */
  public static boolean established(CustomResourceDefinition crd) {
    return crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static Optional<TrackedKind> anyKindOf(CustomResourceDefinition crd) {
    var spec = crd.getSpec();
    Optional<CustomResourceDefinitionVersion> version = spec.getVersions().stream()
        .filter(v -> Boolean.TRUE.equals(v.getStorage()) && Boolean.TRUE.equals(v.getServed()))
        .findFirst()
        .or(() -> spec.getVersions().stream().filter(v -> Boolean.TRUE.equals(v.getServed())).findFirst());
    if (version.isEmpty()) {
      log.warn("CRD serves no version crd={}", crd.getMetadata().getName());
      return Optional.empty();
    }
    return Optional.of(new TrackedKind(spec.getGroup(), version.get().getName(), spec.getNames().getKind(),
        spec.getNames().getPlural(), "Namespaced".equals(spec.getScope())));
  }

  /** Whether a CRD seen by the watch defines this group/kind. */
  public boolean defines(String groupKind) {
    return informer.getStore().list().stream()
        .anyMatch(crd -> groupKind.equals(crd.getSpec().getGroup() + "/" + crd.getSpec().getNames().getKind()));
  }

  @Override
  public void close() {
    informer.stop();
  }
}
