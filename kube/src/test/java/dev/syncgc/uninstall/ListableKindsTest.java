package dev.syncgc.uninstall;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.kube.DiscoverySource;
import dev.syncgc.kube.TrackedKind;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the release looks for the finalizer: every listable resource of every group, once. */
class ServedKindsTest {
  private static APIResource resource(String name, String kind, boolean namespaced, String... verbs) {
    return new APIResourceBuilder().withName(name).withKind(kind).withNamespaced(namespaced)
        .withVerbs(List.of(verbs)).build();
  }

  private static APIGroup group(String name, String preferred, String... versions) {
    APIGroupBuilder b = new APIGroupBuilder().withName(name).withNewPreferredVersion()
        .withGroupVersion(name + "/" + preferred).withVersion(preferred).endPreferredVersion();
    for (String v : versions) {
      b.addNewVersion().withGroupVersion(name + "/" + v).withVersion(v).endVersion();
    }
    return b.build();
  }

  private static DiscoverySource source(List<APIGroup> groups, Map<String, List<APIResource>> resources) {
    return new DiscoverySource() {
      @Override
      public List<APIGroup> groups() {
        return groups;
      }

      @Override
      public APIResourceList resources(String groupVersion) {
        List<APIResource> r = resources.get(groupVersion);
        if (r == null) {
          throw new KubernetesClientException("service unavailable", 503, null);
        }
        return new APIResourceListBuilder().withGroupVersion(groupVersion).withResources(r).build();
      }
    };
  }

  @Test
  void everyListableResourceOfEveryGroupOnceAtItsPreferredVersionWithoutSubresourcesOrEvents() {
    ListableKinds.Found found = ListableKinds.read(source(
        List.of(group("apps", "v1", "v1"), group("example.com", "v2", "v1", "v2"),
            group("events.k8s.io", "v1", "v1")),
        Map.of(
            "v1", List.of(resource("configmaps", "ConfigMap", true, "list", "watch", "patch"),
                resource("pods/status", "Pod", true, "get", "patch"),
                resource("events", "Event", true, "list"),
                resource("bindings", "Binding", true, "create"),
                resource("namespaces", "Namespace", false, "list")),
            "apps/v1", List.of(resource("deployments", "Deployment", true, "list")),
            "example.com/v1", List.of(resource("widgets", "Widget", true, "list"),
                resource("olds", "Old", false, "list")),
            "example.com/v2", List.of(resource("widgets", "Widget", true, "list")),
            "events.k8s.io/v1", List.of(resource("events", "Event", true, "list")))));

    assertEquals(List.of(
        new TrackedKind("", "v1", "ConfigMap", "configmaps", true),
        new TrackedKind("", "v1", "Namespace", "namespaces", false),
        new TrackedKind("apps", "v1", "Deployment", "deployments", true),
        new TrackedKind("example.com", "v2", "Widget", "widgets", true),
        new TrackedKind("example.com", "v1", "Old", "olds", false)), found.kinds());
    assertEquals(List.of(), found.unreadable());
  }

  @Test
  void aGroupVersionWhoseDiscoveryFailsIsNamedNotSkipped() {
    ListableKinds.Found found = ListableKinds.read(source(List.of(group("metrics.k8s.io", "v1beta1", "v1beta1")),
        Map.of("v1", List.of(resource("secrets", "Secret", true, "list")))));
    assertEquals(List.of(new TrackedKind("", "v1", "Secret", "secrets", true)), found.kinds());
    assertEquals(List.of("group-version metrics.k8s.io/v1beta1 (discovery failed: HTTP 503)"), found.unreadable());
  }

  @Test
  void kindsAreNamedAsKubectlNamesThem() {
    assertEquals("secrets", ListableKinds.name(new TrackedKind("", "v1", "Secret", "secrets", true)));
    assertEquals("leases.coordination.k8s.io",
        ListableKinds.name(new TrackedKind("coordination.k8s.io", "v1", "Lease", "leases", true)));
  }
}
