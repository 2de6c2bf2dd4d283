package dev.syncgc.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The benchmark's own kind, BenchItem (bench.syncgc.dev/v1, namespaced, any fields). */
final class BenchCrd {
  static final String GROUP = "bench.syncgc.dev";
  static final String VERSION = "v1";
  static final String KIND = "BenchItem";
  static final String PLURAL = "benchitems";
  static final String NAME = PLURAL + "." + GROUP;
  static final String API_VERSION = GROUP + "/" + VERSION;
  static final ResourceDefinitionContext CONTEXT = new ResourceDefinitionContext.Builder()
      .withGroup(GROUP).withVersion(VERSION).withKind(KIND).withPlural(PLURAL).withNamespaced(true).build();

  static final String PROPAGATION = "syncgc.dev/propagation";
  static final String FINALIZER = "syncgc.dev/GarbageCollectionInProgress";

  private BenchCrd() {}

  /** Installs the CRD if it is missing and waits until the API server serves it. */
  static void install(KubernetesClient client) throws InterruptedException {
    var crds = client.apiextensions().v1().customResourceDefinitions();
    if (crds.withName(NAME).get() == null) {
      CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
          .withNewMetadata().withName(NAME).endMetadata()
          .withNewSpec().withGroup(GROUP).withScope("Namespaced")
          .withNewNames().withKind(KIND).withPlural(PLURAL).withSingular("benchitem").withListKind("BenchItemList")
          .endNames()
          .addNewVersion().withName(VERSION).withServed(true).withStorage(true)
          .withNewSchema().withNewOpenAPIV3Schema().withType("object").withXKubernetesPreserveUnknownFields(true)
          .endOpenAPIV3Schema().endSchema()
          .endVersion()
          .endSpec().build();
      crds.resource(crd).create();
    }
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
