package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.MetadataReader;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.metrics.SyncgcMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The I/O edge against the real API server, where the behaviour that matters is the server's:
 * preconditions, JSON patch tests, LIST consistency, RBAC refusals. Time is a fake clock.
 */
@ExtendWith(TestNamespace.Extension.class)
class EdgeIT {
  private static final TrackedKind CONFIG_MAP = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);

  private final KubernetesClient client = TestCluster.get().client();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final KubeApi api = new KubeApi(client, new RateLimiter(1000, 1000), new SyncgcMetrics(registry));
  private final AtomicLong now = new AtomicLong(1);

  @Test
  void deleteWithAStaleResourceVersionIsRefusedAndTheObjectStays(TestNamespace ns) {
    ConfigMap cm = create(ns.name(), "adopted", null);
    ObjectMetadata seen = read(cm);
    // a controller adopts it after the decision was taken on the version seen
    client.configMaps().inNamespace(ns.name()).withName("adopted").edit(c -> {
      c.getMetadata().setLabels(Map.of("adopted", "true"));
      return c;
    });

    ApiResult refused = new ObjectWrites(api).delete(CONFIG_MAP, seen.ref(), seen.resourceVersion(), null,
        "Background", ObjectWrites.UNCHECKED);

    assertEquals(409, refused.code(), refused.body());
    assertTrue(refused.conflict());
    assertNotNull(client.configMaps().inNamespace(ns.name()).withName("adopted").get(), "still there");
    ObjectMetadata fresh = read(client.configMaps().inNamespace(ns.name()).withName("adopted").get());
    assertTrue(new ObjectWrites(api).delete(CONFIG_MAP, fresh.ref(), fresh.resourceVersion(), null, "Background",
        ObjectWrites.UNCHECKED).ok(), "fresh version deletes");
  }

  @Test
  void deleteNeverHitsAnObjectRecreatedUnderTheSameName(TestNamespace ns) {
    ObjectMetadata old = read(create(ns.name(), "reborn", null));
    client.configMaps().inNamespace(ns.name()).withName("reborn").delete();
    org.awaitility.Awaitility.await().until(() -> client.configMaps().inNamespace(ns.name()).withName("reborn").get() == null);
    ConfigMap reborn = create(ns.name(), "reborn", null);

    ApiResult refused = new ObjectWrites(api).delete(CONFIG_MAP, old.ref(), 0, null, "Background",
        ObjectWrites.UNCHECKED);

    assertEquals(409, refused.code(), refused.body());
    assertEquals(reborn.getMetadata().getUid(),
        client.configMaps().inNamespace(ns.name()).withName("reborn").get().getMetadata().getUid());
  }

  @Test
  void removingAnOwnerReferenceThatMovedFailsItsTestAndRemovesNothing(TestNamespace ns) {
    // the references move (another writer removed the first one) after the view was taken
    assertStaleReferenceRemovalRefused(ns, 1, 1);
  }

  @Test
  void removingAReferenceAfterTheOtherOwnerDroppedItsOwnIsRefusedSoTheObjectIsNotOrphaned(TestNamespace ns) {
    // the race: both owners are deleted by one cascade; b's worker saw a as solid and dropped b's
    // reference; a's worker, on its older view, saw b as solid and now drops a's: the object keeps
    // an owner, which will delete or keep it
    assertStaleReferenceRemovalRefused(ns, 0, 0);
  }

  /**
   * A ConfigMap owned by a and b is read; another writer then leaves only the reference at index
   * {@code kept}; removing the reference at index {@code removed} on the old view must fail its
   * test and leave the object as the other writer left it.
   */
  private void assertStaleReferenceRemovalRefused(TestNamespace ns, int kept, int removed) {
    List<ConfigMap> owners = List.of(create(ns.name(), "owner-a", null), create(ns.name(), "owner-b", null));
    ObjectMetadata seen = read(create(ns.name(), "two-owners", owners));
    client.configMaps().inNamespace(ns.name()).withName("two-owners").edit(c -> {
      c.getMetadata().setOwnerReferences(new ArrayList<>(c.getMetadata().getOwnerReferences().subList(kept, kept + 1)));
      return c;
    });

    ApiResult r = new ObjectWrites(api).removeOwnerReference(CONFIG_MAP, seen,
        owners.get(removed).getMetadata().getUid(), ObjectWrites.UNCHECKED);

    assertTrue(r.conflict(), r.code() + " " + r.body());
    assertEquals(List.of(owners.get(kept).getMetadata().getUid()), client.configMaps().inNamespace(ns.name())
        .withName("two-owners").get().getMetadata().getOwnerReferences().stream().map(o -> o.getUid()).toList(),
        "nothing removed");
  }

  @Test
  void addingTheFinalizerOnAStaleViewIsRefused(TestNamespace ns) {
    ObjectMetadata seen = read(create(ns.name(), "stale", null));
    client.configMaps().inNamespace(ns.name()).withName("stale").edit(c -> {
      c.getMetadata().setFinalizers(List.of("example.com/other"));
      return c;
    });

    ApiResult r = new ObjectWrites(api).addFinalizer(CONFIG_MAP, seen, "syncgc.dev/x", Map.of(), ObjectWrites.UNCHECKED);

    assertEquals(409, r.code(), r.body());
    assertEquals(List.of("example.com/other"),
        client.configMaps().inNamespace(ns.name()).withName("stale").get().getMetadata().getFinalizers(),
        "the other controller's finalizer is not dropped");
    client.configMaps().inNamespace(ns.name()).withName("stale").edit(c -> {
      c.getMetadata().setFinalizers(List.of());
      return c;
    });
  }

  @Test
  void freshnessCheckFeedsWhatTheGraphHasNotSeenAndOneListAnswersForEveryOwnerSeenBefore(TestNamespace ns) {
    DependencyGraph graph = graph();
    List<String> fed = new ArrayList<>();
    FreshnessBarrier barrier = barrier(api, graph, fed);
    ConfigMap known = create(ns.name(), "known", null);
    graph.upsert(read(known));
    ConfigMap unseen = create(ns.name(), "unseen", List.of(known));
    ObjectMetadata first = owner(ns.name(), "first");
    ObjectMetadata second = owner(ns.name(), "second");
    barrier.deletionSeen(first);
    barrier.deletionSeen(second);
    tick();

    assertEquals(List.of(), barrier.verify(first, () -> List.of(CONFIG_MAP)));
    assertTrue(fed.contains("unseen") && !fed.contains("known"), "only what the graph did not know is fed: " + fed);
    double lists = lists();
    assertEquals(List.of(), barrier.verify(second, () -> List.of(CONFIG_MAP)));
    assertEquals(lists, lists(), "an owner seen before the LIST was sent needs no LIST of its own");

    ObjectMetadata later = owner(ns.name(), "later");
    tick();
    barrier.deletionSeen(later);
    tick();
    assertEquals(List.of(), barrier.verify(later, () -> List.of(CONFIG_MAP)));
    assertEquals(lists + 1, lists(), "an owner seen after it needs a new LIST");
    assertNotNull(unseen);
  }

  @Test
  void aKindThatCannotBeListedIsABlockerNamedOnceNotReListedOnEverySync(TestNamespace ns) {
    Config admin = client.getConfiguration();
    Config nobody = new ConfigBuilder(admin).withImpersonateUsername("syncgc-edge-test-nobody")
        .withImpersonateGroups("system:authenticated").build();
    try (KubernetesClient forbidden = new KubernetesClientBuilder().withConfig(nobody).build()) {
      KubeApi refusedApi = new KubeApi(forbidden, new RateLimiter(1000, 1000), new SyncgcMetrics(registry));
      FreshnessBarrier barrier = barrier(refusedApi, graph(), new ArrayList<>());
      ObjectMetadata owner = owner(ns.name(), "owner");
      barrier.deletionSeen(owner);
      tick();

      List<Blocker> blockers = barrier.verify(owner, () -> List.of(CONFIG_MAP));
      assertEquals(1, blockers.size(), blockers.toString());
      assertTrue(blockers.get(0).why().contains("cannot list ConfigMap in " + ns.name())
          && blockers.get(0).why().contains("forbidden"), blockers.get(0).why());
      double requests = lists();
      assertEquals(blockers, barrier.verify(owner, () -> List.of(CONFIG_MAP)), "still unverified");
      assertEquals(requests, lists(), "the failure is remembered, not re-listed at once");
    }
  }

  private FreshnessBarrier barrier(KubeApi kubeApi, DependencyGraph graph, List<String> fed) {
    // no watch position: the LISTs are what these tests are about
    return new FreshnessBarrier(kubeApi::listMetadata, (kind, namespace) -> 0, Set.of(), graph::knows, (kind, item) -> {
      fed.add(item.ref().name());
      graph.upsert(item);
    }, n -> { }, now::get, Runnable::run, new ObjectStates());
  }

  /** A graph in which every owner kind is a tracked, namespaced one. */
  private static DependencyGraph graph() {
    return new DependencyGraph(new dev.syncgc.core.graph.KindInfo() {
      @Override
      public dev.syncgc.core.model.Scope scope(dev.syncgc.core.model.OwnerLink link) {
        return dev.syncgc.core.model.Scope.NAMESPACED;
      }

      @Override
      public boolean tracked(dev.syncgc.core.model.OwnerLink link) {
        return true;
      }
    });
  }

  private void tick() {
    now.addAndGet(1_000_000);
  }

  private double lists() {
    return registry.find("syncgc.api.requests").tag("verb", "list").counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  private ConfigMap create(String namespace, String name, List<ConfigMap> owners) {
    ConfigMapBuilder b = new ConfigMapBuilder().withNewMetadata().withName(name).endMetadata().addToData("k", "v");
    if (owners != null) {
      for (ConfigMap owner : owners) {
        b.editMetadata().addToOwnerReferences(new OwnerReferenceBuilder().withApiVersion("v1")
            .withKind("ConfigMap").withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
            .build()).endMetadata();
      }
    }
    return client.configMaps().inNamespace(namespace).resource(b.build()).create();
  }

  private static ObjectMetadata read(ConfigMap cm) {
    GenericKubernetesResource generic = new GenericKubernetesResource();
    generic.setApiVersion("v1");
    generic.setKind("ConfigMap");
    generic.setMetadata(cm.getMetadata());
    return new MetadataReader().read(CONFIG_MAP, generic);
  }

  /** An owner under deletion, as the graph would hold it. */
  private static ObjectMetadata owner(String namespace, String name) {
    return TestObjects.obj(UUID.randomUUID().toString()).kind("v1", "ConfigMap").namespace(namespace).name(name)
        .finalizers("syncgc.dev/x").deletedAt(Instant.now()).build();
  }
}
