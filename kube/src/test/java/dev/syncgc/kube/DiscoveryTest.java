package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.Scope;
import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Discovery keeps what it knows of a group-version that cannot be read for a while. */
class DiscoveryTest {
  private final Set<String> failing = new HashSet<>();
  private final Set<String> served = new HashSet<>(Set.of("example.dev/v1"));

  private final Discovery discovery = new Discovery(new DiscoverySource() {
    @Override
    public List<APIGroup> groups() {
      return served.isEmpty() ? List.of() : List.of(new APIGroupBuilder().withName("example.dev")
          .addNewVersion().withGroupVersion("example.dev/v1").withVersion("v1").endVersion()
          .withNewPreferredVersion().withGroupVersion("example.dev/v1").withVersion("v1").endPreferredVersion()
          .build());
    }

    @Override
    public APIResourceList resources(String groupVersion) {
      if (failing.contains(groupVersion)) {
        throw new KubernetesClientException("service unavailable", 503, null);
      }
      if (groupVersion.equals("v1")) {
        return new APIResourceListBuilder().addToResources(resource("configmaps", "ConfigMap", true),
            resource("events", "Event", true), deletableOnlyByCreate("bindings", "Binding")).build();
      }
      return new APIResourceListBuilder().addToResources(resource("gadgets", "Gadget", false),
          resource("gadgets/status", "Gadget", false)).build();
    }
  }, Duration.ofHours(1), Clock.systemUTC());

  private static io.fabric8.kubernetes.api.model.APIResource resource(String name, String kind, boolean namespaced) {
    return new APIResourceBuilder().withName(name).withKind(kind).withNamespaced(namespaced)
        .withVerbs("get", "list", "watch", "create", "delete", "patch").build();
  }

  private static io.fabric8.kubernetes.api.model.APIResource deletableOnlyByCreate(String name, String kind) {
    return new APIResourceBuilder().withName(name).withKind(kind).withNamespaced(true).withVerbs("create").build();
  }

  private List<String> deletable() {
    return discovery.deletableKinds().stream().map(TrackedKind::groupKind).toList();
  }

  @Test
  void everyKindServedWithListWatchAndDeleteIsDeletableEventsAndSubresourcesLeftOut() {
    discovery.refresh();
    assertEquals(List.of("/ConfigMap", "example.dev/Gadget"), deletable());
  }

  @Test
  void aDeletableKindStaysWhileItsGroupVersionCannotBeReadAndGoesWithItsGroup() {
    discovery.refresh();
    failing.add("example.dev/v1");
    discovery.refresh();
    assertEquals(List.of("/ConfigMap", "example.dev/Gadget"), deletable(), "a failing read keeps it");
    failing.clear();
    served.clear();
    discovery.refresh();
    assertEquals(List.of("/ConfigMap"), deletable(), "a read that succeeded no longer lists it");
  }

  @Test
  void groupsAndVersionsUnchangedMeanNoRereadAndAGroupGoneMeansOne() {
    discovery.refresh();
    assertTrue(!discovery.refreshIfGroupsChanged(), "nothing changed: no read of every group-version");
    served.clear();
    assertTrue(discovery.refreshIfGroupsChanged(), "a group gone: read again");
    assertEquals(List.of("/ConfigMap"), deletable());
  }

  @Test
  void aKindLearnedFromTheCrdWatchIsNotServedUntilDiscoveryListsIt() {
    discovery.refresh();
    discovery.learn(new TrackedKind("late.dev", "v1", "Widget", "widgets", true));
    assertTrue(deletable().stream().noneMatch(k -> k.startsWith("late.dev")), deletable().toString());
  }

  @Test
  void aGroupVersionThatFailsKeepsItsKindsKnown() {
    discovery.refresh();
    assertEquals(Scope.CLUSTER, discovery.scopeOf("example.dev/v1", "Gadget"));

    failing.add("example.dev/v1");
    discovery.refresh();

    assertEquals(Scope.CLUSTER, discovery.scopeOf("example.dev/v1", "Gadget"), "still known while its read fails");
    assertTrue(discovery.find("example.dev/Gadget").isPresent());
    assertEquals(Scope.NAMESPACED, discovery.scopeOf("v1", "ConfigMap"));
  }

  @Test
  void aGroupNoLongerServedIsForgotten() {
    discovery.refresh();
    served.clear();

    discovery.refresh();

    assertEquals(Scope.UNKNOWN, discovery.scopeOf("example.dev/v1", "Gadget"));
  }

  @Test
  void aKindLearnedFromTheCrdWatchSurvivesARefreshThatDoesNotShowItYet() {
    discovery.refresh();
    discovery.learn(new TrackedKind("late.dev", "v1", "Widget", "widgets", true));

    discovery.refresh();

    assertEquals(Scope.NAMESPACED, discovery.scopeOf("late.dev/v1", "Widget"));
  }
}
