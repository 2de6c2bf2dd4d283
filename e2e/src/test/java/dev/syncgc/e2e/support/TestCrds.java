package dev.syncgc.e2e.support;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionNamesBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * CRDs of group {@code test.syncgc.dev}, version {@code v1}, used as owners and dependents:
 * {@code Widget} (namespaced) and {@code ClusterWidget} (cluster-scoped), any spec and status
 * accepted. Both are {@code examples/widget-crd.yaml} (group {@code example.syncgc.dev}, which
 * {@code make demo} installs) in this group, so that the tests and the demo do not clash.
 */
public final class TestCrds {
  public static final String GROUP = "test.syncgc.dev";
  public static final String VERSION = "v1";
  public static final String API_VERSION = GROUP + "/" + VERSION;
  /** The one definition of Widget's schema. */
  public static final Path WIDGET_CRD_FILE = TestCluster.repoRoot().resolve("examples/widget-crd.yaml");

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

  /**
   * The CRD of {@code context}: {@link #WIDGET_CRD_FILE} with its group, names and scope changed; the
   * schema is the file's.
   */
  static CustomResourceDefinition crd(ResourceDefinitionContext context) {
    CustomResourceDefinition crd;
    try (InputStream in = Files.newInputStream(WIDGET_CRD_FILE)) {
      crd = Serialization.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + WIDGET_CRD_FILE, e);
    }
    List<String> versions = crd.getSpec().getVersions().stream().map(v -> v.getName()).toList();
    if (!versions.equals(List.of(VERSION))) {
      throw new IllegalStateException(WIDGET_CRD_FILE + " defines versions " + versions + ", the tests use "
          + VERSION + " only");
    }
    String kind = context.getKind();
    crd.getMetadata().setName(context.getPlural() + "." + GROUP);
    crd.getSpec().setGroup(GROUP);
    crd.getSpec().setScope(context.isNamespaceScoped() ? "Namespaced" : "Cluster");
    crd.getSpec().setNames(new CustomResourceDefinitionNamesBuilder()
        .withKind(kind).withListKind(kind + "List")
        .withPlural(context.getPlural()).withSingular(kind.toLowerCase(Locale.ROOT))
        .build());
    return crd;
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
