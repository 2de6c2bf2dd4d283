package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIGroupBuilder;
import io.fabric8.kubernetes.api.model.APIResourceBuilder;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.APIResourceListBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Every served deletable kind is tracked; one this class tracked goes once discovery stops listing it. */
class ServedKindsTest {
  private final Set<String> groups = new HashSet<>(Set.of("metrics.dev", "crd.dev"));
  private final Set<String> definedByCrd = new HashSet<>(Set.of("crd.dev/Widget"));
  private final Set<String> tracked = new HashSet<>();
  private final List<String> calls = new ArrayList<>();
  /** Kinds added to metrics.dev/v1 since (a group-version already known). */
  private final List<String> added = new ArrayList<>();
  private final java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
  /** Whether the aggregated discovery answer fails (null). */
  private boolean digestFails;
  /** Group-versions whose discovery fails (an aggregated API whose service is down). */
  private final Set<String> failing = new HashSet<>();

  private final Discovery discovery = new Discovery(new DiscoverySource() {
    @Override
    public List<APIGroup> groups() {
      return groups.stream().sorted().map(g -> new APIGroupBuilder().withName(g)
          .addNewVersion().withGroupVersion(g + "/v1").withVersion("v1").endVersion()
          .withNewPreferredVersion().withGroupVersion(g + "/v1").withVersion("v1").endPreferredVersion().build())
          .toList();
    }

    @Override
    public APIResourceList resources(String groupVersion) {
      if (failing.contains(groupVersion)) {
        throw new io.fabric8.kubernetes.client.KubernetesClientException("service unavailable", 503, null);
      }
      String kind = groupVersion.startsWith("metrics.dev") ? "Sample" : groupVersion.startsWith("crd.dev") ? "Widget"
          : "ConfigMap";
      APIResourceListBuilder list = new APIResourceListBuilder().addToResources(new APIResourceBuilder()
          .withName(kind.toLowerCase() + "s").withKind(kind).withNamespaced(true).withVerbs("list", "watch", "delete")
          .build());
      if (groupVersion.startsWith("metrics.dev")) {
        added.forEach(k -> list.addToResources(new APIResourceBuilder().withName(k.toLowerCase() + "s").withKind(k)
            .withNamespaced(true).withVerbs("list", "watch", "delete").build()));
      }
      return list.build();
    }

    @Override
    public String servedDigest() {
      reads.incrementAndGet();
      return digestFails ? null : groups + " " + added;
    }
  }, Duration.ZERO, Clock.systemUTC());

  private final ServedKinds served = new ServedKinds(discovery, definedByCrd::contains, tracked::contains, k -> {
    tracked.add(k.groupKind());
    calls.add("track " + k.groupKind());
    return CompletableFuture.completedFuture(null);
  }, k -> {
    tracked.remove(k.groupKind());
    calls.add("untrack " + k.groupKind());
  });

  @Test
  void tracksServedKindsButNotCrdKindsAndDropsOnlyItsOwnOnceNoLongerServed() {
    discovery.refresh();
    served.trackNew();
    assertEquals(List.of("track /ConfigMap", "track metrics.dev/Sample"), calls);

    groups.clear(); // the aggregated API and the CRD's group are gone from discovery
    discovery.refresh();
    served.trackNew();
    assertEquals(List.of("track /ConfigMap", "track metrics.dev/Sample", "untrack metrics.dev/Sample"), calls);
  }

  /**
   * An aggregated API down at start is named (it used to be dropped without a word)
   * and its kinds are tracked once its discovery answers.
   */
  @Test
  void aGroupWhoseDiscoveryFailsIsNamedAndTrackedOnceItAnswers() {
    failing.add("metrics.dev/v1");
    discovery.refresh();
    served.trackNew();
    assertEquals(List.of("track /ConfigMap"), calls);
    assertEquals(List.of("metrics.dev/v1"), discovery.unreadGroupVersions());
    assertEquals(1, discovery.failures(), "the failed read counted");

    failing.clear();
    discovery.refreshIfGroupsChanged(); // what the served-kinds timer calls
    served.trackNew();
    assertEquals(List.of("track /ConfigMap", "track metrics.dev/Sample"), calls);
    assertEquals(List.of(), discovery.unreadGroupVersions());
    assertEquals(1, discovery.failures(), "a read that answers is not counted");
  }

  /**
   * A kind added to a group-version already known (an aggregated API's new resource)
   * is tracked at the next look; the list of group-versions alone did not change, so it never was.
   */
  @Test
  void aKindAddedToAKnownGroupVersionIsTrackedAtTheNextLook() {
    discovery.refresh();
    served.trackNew();
    discovery.refreshIfGroupsChanged();
    served.trackNew();
    assertEquals(List.of("track /ConfigMap", "track metrics.dev/Sample"), calls);

    added.add("Metric");
    discovery.refreshIfGroupsChanged();
    served.trackNew();
    assertEquals(List.of("track /ConfigMap", "track metrics.dev/Sample", "track metrics.dev/Metric"), calls);
  }

  /** An aggregated discovery answer that fails now tells nothing: no rediscovery for it, none when it comes back. */
  @Test
  void aFailedAggregatedAnswerIsNoChange() {
    discovery.refreshIfGroupsChanged();
    digestFails = true;
    assertEquals(false, discovery.refreshIfGroupsChanged());
    digestFails = false;
    assertEquals(false, discovery.refreshIfGroupsChanged());
    assertEquals(3, reads.get());
  }
}
