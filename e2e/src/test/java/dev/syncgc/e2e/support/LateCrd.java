package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * A namespaced CRD {@code Gadget} in a fresh group {@code late<random>.test.syncgc.dev}, created
 * while the operator runs (to test that kinds defined later are tracked). {@link #close()} deletes
 * its objects and the CRD and waits until the CRD is gone.
 */
public final class LateCrd implements AutoCloseable {
  public static final String KIND = "Gadget";
  public static final String PLURAL = "gadgets";
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private final KubernetesClient client;
  private final String group;
  private final String version;
  private final ResourceDefinitionContext context;
  private Instant established;

  private LateCrd(KubernetesClient client, String group, String version) {
    this.client = client;
    this.group = group;
    this.version = version;
    this.context = new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version)
        .withKind(KIND).withPlural(PLURAL).withNamespaced(true).build();
  }

  /** Creates the CRD (version v1) and waits until it is Established. */
  public static LateCrd create(KubernetesClient client) {
    LateCrd crd = new LateCrd(client, "late" + Namespaces.randomSuffix(8) + ".test.syncgc.dev", "v1");
    crd.install();
    return crd;
  }

  /** Waits until the CRD is gone (the test deleted it). */
  public void awaitGone() {
    var crds = client.apiextensions().v1().customResourceDefinitions();
    await("CRD " + crdName() + " gone").atMost(DEADLINE).until(() -> crds.withName(crdName()).get() == null);
  }

  /**
   * Once this CRD is gone (the test deleted it), creates it again, same group and kind, serving and
   * storing only {@code version}, and waits until it is Established.
   */
  public LateCrd recreate(String version) {
    awaitGone();
    LateCrd again = new LateCrd(client, group, version);
    again.install();
    return again;
  }

  public String group() {
    return group;
  }

  public String apiVersion() {
    return group + "/" + version;
  }

  public String crdName() {
    return PLURAL + "." + group;
  }

  /** When the API server reported the CRD Established (as seen by polling). */
  public Instant established() {
    return established;
  }

  public MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
      Resource<GenericKubernetesResource>> gadgets() {
    return client.genericKubernetesResources(context);
  }

  public Resource<GenericKubernetesResource> gadget(String namespace, String name) {
    return gadgets().inNamespace(namespace).withName(name);
  }

  /** Creates a Gadget with these annotations and returns it as stored. */
  public GenericKubernetesResource createGadget(
      String namespace, String name, Map<String, String> annotations) {
    return gadgets().inNamespace(namespace).resource(new GenericKubernetesResourceBuilder()
        .withApiVersion(apiVersion()).withKind(KIND)
        .withNewMetadata().withName(name).withNamespace(namespace)
            .withAnnotations(annotations.isEmpty() ? null : annotations).endMetadata()
        .addToAdditionalProperties("spec", Map.of())
        .build()).create();
  }

  private void install() {
    CustomResourceDefinition crd = new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(crdName()).endMetadata()
        .withNewSpec()
            .withGroup(group)
            .withScope("Namespaced")
            .withNewNames()
                .withKind(KIND).withListKind(KIND + "List").withPlural(PLURAL).withSingular("gadget")
            .endNames()
            .addNewVersion()
                .withName(version).withServed(true).withStorage(true)
                .withNewSchema().withOpenAPIV3Schema(new JSONSchemaPropsBuilder()
                    .withType("object")
                    .addToProperties("spec", new JSONSchemaPropsBuilder().withType("object")
                        .withXKubernetesPreserveUnknownFields(true).build())
                    .build())
                .endSchema()
            .endVersion()
        .endSpec()
        .build();
    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
    await("CRD " + crdName() + " Established").atMost(DEADLINE).pollInterval(Duration.ofMillis(50))
        .until(() -> {
          CustomResourceDefinition current =
              client.apiextensions().v1().customResourceDefinitions().withName(crdName()).get();
          return current != null && current.getStatus() != null && current.getStatus().getConditions() != null
              && current.getStatus().getConditions().stream()
                  .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
        });
    established = Instant.now();
  }

  /**
   * Deletes every Gadget and the CRD, and waits until the CRD is gone. Should an object stay held
   * by the syncgc finalizer (the test failed), that finalizer is removed so no CRD is left behind.
   */
  @Override
  public void close() {
    var crds = client.apiextensions().v1().customResourceDefinitions();
    if (crds.withName(crdName()).get() == null) {
      return; // the test deleted it
    }
    gadgets().inAnyNamespace().delete();
    crds.withName(crdName()).delete();
    try {
      await("CRD " + crdName() + " gone").atMost(DEADLINE)
          .until(() -> crds.withName(crdName()).get() == null);
    } catch (RuntimeException stuck) {
      for (GenericKubernetesResource g : gadgets().inAnyNamespace().list().getItems()) {
        MetadataPatches.removeFinalizer(
            gadget(g.getMetadata().getNamespace(), g.getMetadata().getName()), SpecNames.FINALIZER);
      }
      await("CRD " + crdName() + " gone").atMost(DEADLINE)
          .until(() -> crds.withName(crdName()).get() == null);
      throw stuck;
    }
  }
}
