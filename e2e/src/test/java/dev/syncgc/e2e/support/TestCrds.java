package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaProps;
import io.fabric8.kubernetes.api.model.apiextensions.v1.JSONSchemaPropsBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Duration;
import java.util.List;

/**
 * CRDs of group {@code test.syncgc.dev}, version {@code v1}, used as owners and dependents:
 * {@code Widget} (namespaced) and {@code ClusterWidget} (cluster-scoped), any spec accepted.
 */
public final class TestCrds {
  public static final String GROUP = "test.syncgc.dev";
  public static final String VERSION = "v1";
  public static final String API_VERSION = GROUP + "/" + VERSION;

  public static final ResourceDefinitionContext WIDGET = context("Widget", "widgets", true);
  public static final ResourceDefinitionContext CLUSTER_WIDGET =
      context("ClusterWidget", "clusterwidgets", false);

  private static volatile boolean installed;

  private TestCrds() {}

  /** Creates or updates both CRDs and waits until they are Established. Cheap after the first call. */
  public static synchronized void install(KubernetesClient client) {
    if (installed) {
      return;
    }
    List<CustomResourceDefinition> crds = List.of(crd(WIDGET), crd(CLUSTER_WIDGET));
    for (CustomResourceDefinition crd : crds) {
      client.apiextensions().v1().customResourceDefinitions().resource(crd)
          .fieldManager("syncgc-e2e").forceConflicts().serverSideApply();
    }
    for (CustomResourceDefinition crd : crds) {
      String name = crd.getMetadata().getName();
      await("CRD " + name + " Established").atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> isEstablished(client.apiextensions().v1().customResourceDefinitions()
              .withName(name).get()));
    }
    installed = true;
  }

  public static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
      Resource<GenericKubernetesResource>> widgets(KubernetesClient client) {
    return client.genericKubernetesResources(WIDGET);
  }

  public static MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList,
      Resource<GenericKubernetesResource>> clusterWidgets(KubernetesClient client) {
    return client.genericKubernetesResources(CLUSTER_WIDGET);
  }

  private static ResourceDefinitionContext context(String kind, String plural, boolean namespaced) {
    return new ResourceDefinitionContext.Builder()
        .withGroup(GROUP).withVersion(VERSION).withKind(kind).withPlural(plural)
        .withNamespaced(namespaced).build();
  }

  private static CustomResourceDefinition crd(ResourceDefinitionContext context) {
    String kind = context.getKind();
    return new CustomResourceDefinitionBuilder()
        .withNewMetadata().withName(context.getPlural() + "." + GROUP).endMetadata()
        .withNewSpec()
            .withGroup(GROUP)
            .withScope(context.isNamespaceScoped() ? "Namespaced" : "Cluster")
            .withNewNames()
                .withKind(kind).withListKind(kind + "List")
                .withPlural(context.getPlural()).withSingular(kind.toLowerCase())
            .endNames()
            .addNewVersion()
                .withName(VERSION).withServed(true).withStorage(true)
                .withNewSchema().withOpenAPIV3Schema(new JSONSchemaPropsBuilder()
                    .withType("object")
                    .addToProperties("spec", anyObject())
                    .addToProperties("status", anyObject())
                    .build())
                .endSchema()
            .endVersion()
        .endSpec()
        .build();
  }

  private static JSONSchemaProps anyObject() {
    return new JSONSchemaPropsBuilder().withType("object").withXKubernetesPreserveUnknownFields(true)
        .build();
  }

  /** Waits until the CRD {@code name} is Established. */
  public static void awaitEstablished(KubernetesClient client, String name, Duration deadline) {
    await("CRD " + name + " Established").atMost(deadline).pollInterval(Duration.ofMillis(100))
        .until(() -> isEstablished(client.apiextensions().v1().customResourceDefinitions().withName(name).get()));
  }

  private static boolean isEstablished(CustomResourceDefinition crd) {
    return crd != null && crd.getStatus() != null && crd.getStatus().getConditions() != null
        && crd.getStatus().getConditions().stream()
            .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
