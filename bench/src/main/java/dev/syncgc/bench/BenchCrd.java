package dev.syncgc.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNamesBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's own kind, BenchItem (bench.syncgc.dev/v1, namespaced): examples/widget-crd.yaml's Widget
 * under another group and names (any spec and status).
 */
final class BenchCrd {
  static final String GROUP = "bench.syncgc.dev";
  static final String VERSION = "v1";
  static final String KIND = "BenchItem";
  static final String PLURAL = "benchitems";
  static final String NAME = PLURAL + "." + GROUP;
  static final String API_VERSION = GROUP + "/" + VERSION;
  static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
      .withGroup(GROUP).withVersion(VERSION).withKind(KIND).withPlural(PLURAL).withNamespaced(true).build();

  private BenchCrd() {}

  /**
   * The CRD: {@code file} (examples/widget-crd.yaml, the one definition of Widget's schema) as kind
   * BenchItem of this group; only the group and names change.
   */
  static CustomResourceDefinition crd(Path file) {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(file)) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the Widget CRD " + file + " (run from the repository's root, "
          + "or give --widget-crd)", e);
    }
    List<String> versions = crd.getSpec().getVersions().stream().map(v -> v.getName()).toList();
    if (!versions.equals(List.of(VERSION))) {
      throw new IllegalStateException(file + " defines versions " + versions + ", the benchmark uses " + VERSION
          + " only");
    }
    crd.getMetadata().setName(NAME);
    crd.getSpec().setGroup(GROUP);
    crd.getSpec().setScope("Namespaced");
    crd.getSpec().setNames(new CustomResourceDefinitionNamesBuilder()
        .withKind(KIND).withPlural(PLURAL).withSingular("benchitem").withListKind("BenchItemList").build());
    return crd;
  }

  /** Creates or updates the CRD from {@code file} (see {@link #crd}) and waits until the API server serves it. */
  static void install(KubernetesClient client, Path file) throws InterruptedException {
    client.apiextensions().v1().customResourceDefinitions().resource(crd(file))
        .fieldManager("syncgc-bench").forceConflicts().serverSideApply();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        client.genericKubernetesResources(CONTEXT).inNamespace("default").list();
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("CRD " + NAME + " not served after 60 s", e);
        }
        Thread.sleep(200);
      }
    }
  }

  static GenericKubernetesResource item(String namespace, String name, List<OwnerReference> owners,
      Map<String, String> annotations, Map<String, String> labels, int index) {
    return new GenericKubernetesResourceBuilder()
        .withApiVersion(API_VERSION).withKind(KIND)
        .withNewMetadata().withNamespace(namespace).withName(name)
        .withOwnerReferences(owners).withAnnotations(annotations).withLabels(labels)
        .endMetadata()
        .withAdditionalProperties(Map.of("spec", Map.of("index", index)))
        .build();
  }

  /** An owner reference the built-in collector's foreground deletion honours (blockOwnerDeletion). */
  static OwnerReference owner(String name, String uid) {
    return new OwnerReferenceBuilder().withApiVersion(API_VERSION).withKind(KIND).withName(name).withUid(uid)
        .withController(true).withBlockOwnerDeletion(true).build();
  }
}
