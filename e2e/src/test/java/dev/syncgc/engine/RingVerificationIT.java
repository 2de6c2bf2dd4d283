package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Plans;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.policy.PolicyStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A ring goes as a unit only once the freshness check holds for every member, not only for the
 * owner being synced (item 5d): a member whose deletion was seen after the owner's LIST has its own
 * check, and while that fails (here: the LIST is forbidden) nothing of the ring is released.
 */
@ExtendWith(TestNamespace.Extension.class)
class RingVerificationIT {
  private static final TrackedKind CONFIG_MAP = EngineParts.CONFIG_MAP;

  private final KubernetesClient client = TestCluster.get().client();
  private final EngineParts parts = new EngineParts(client);
  private final SyncgcMetrics metrics = parts.metrics;
  private final KubeApi admin = parts.admin;
  private final EdgeObjects objects = parts.objects;
  private final AtomicLong now = new AtomicLong(1);

  @BeforeAll
  static void aloneWithTheApiServer() {
    SharedOperator.pause();
  }

  @AfterEach
  void stop() {
    parts.close();
  }

  @Test
  void aRingIsNotReleasedWhileTheCheckOfAnotherMemberFails(TestNamespace ns) throws Exception {
    ObjectMetadata[] ring = ringUnderDeletion(ns.name());
    ObjectMetadata a = ring[0];
    ObjectMetadata b = ring[1];
    KubeApi lister = objects.limitedApi(ns.name(), metrics, List.of("list"), List.of());
    FreshnessBarrier barrier = new FreshnessBarrier(lister::listMetadata, (kind, namespace) -> 0, Set.of(),
        objects.graph()::knows,
        (kind, item) -> objects.graph().upsert(item), n -> { }, now::get, Runnable::run,
        new ObjectStates());
    ObjectSync sync = objectSync(ns, barrier);

    barrier.deletionSeen(a);
    now.addAndGet(1_000);
    assertEquals(List.of(), barrier.verify(a, () -> List.of(CONFIG_MAP)), "the owner's own check passes");
    now.addAndGet(1_000);
    barrier.deletionSeen(b); // seen after the owner's LIST: that LIST does not answer for it
    objects.revoke();
    Awaitility.await("the API server refuses the LIST").atMost(Duration.ofSeconds(30)).until(() -> forbidden(lister, ns));
    List<Step> plan = Plans.plan(new DeletionPlanner(Duration.ofMinutes(1), Duration.ofSeconds(1)), objects.graph(), a,
        Propagation.SYNCHRONOUS, Optional.empty(), Instant.now(), u -> null, List.of());
    assertTrue(plan.get(plan.size() - 1) instanceof Step.ReleaseRing, "the ring is due for release: " + plan);

    assertTrue(sync.sync(a.uid()).retry(), "looked at again after a backoff");
    assertTrue(objects.finalizers(ns.name(), "ring-a").contains(Names.FINALIZER), "a released on an unverified ring");
    assertTrue(objects.finalizers(ns.name(), "ring-b").contains(Names.FINALIZER), "b released unverified");

    objects.grant();
    Awaitility.await("the API server allows the LIST again").atMost(Duration.ofSeconds(30))
        .until(() -> !forbidden(lister, ns));
    now.addAndGet(FreshnessBarrier.FAILURE_MEMORY.toNanos() + 1);
    assertFalse(sync.sync(a.uid()).retry(), "verified now: released as a unit");
    Awaitility.await("both members go").atMost(Duration.ofSeconds(30))
        .until(() -> objects.get(ns.name(), "ring-a") == null && objects.get(ns.name(), "ring-b") == null);
  }

  private static boolean forbidden(KubeApi api, TestNamespace ns) {
    try {
      api.listMetadata(CONFIG_MAP, ns.name(), item -> { });
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 403;
    }
  }

  /** ring-a owns ring-b and ring-b owns ring-a; both Synchronous, started, and being deleted. */
  private ObjectMetadata[] ringUnderDeletion(String namespace) {
    ConfigMap a = objects.create(namespace, "ring-a", List.of(), List.of(Names.FINALIZER));
    ConfigMap b = objects.create(namespace, "ring-b", List.of(objects.ref(a)), List.of(Names.FINALIZER));
    for (String name : List.of("ring-a", "ring-b")) {
      client.configMaps().inNamespace(namespace).withName(name).edit(c -> {
        c.getMetadata().setAnnotations(Map.of(Names.PROPAGATION, "Synchronous",
            Names.DEADLINE, Instant.now().plusSeconds(600).toString()));
        if (name.equals("ring-a")) {
          c.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion("v1")
              .withKind("ConfigMap").withName("ring-b").withUid(b.getMetadata().getUid()).build()));
        }
        return c;
      });
      client.configMaps().inNamespace(namespace).withName(name).delete();
    }
    Awaitility.await().until(() -> objects.read(namespace, "ring-a").beingDeleted()
        && objects.read(namespace, "ring-b").beingDeleted());
    ObjectMetadata ra = objects.read(namespace, "ring-a");
    ObjectMetadata rb = objects.read(namespace, "ring-b");
    objects.graph().upsert(ra);
    objects.graph().upsert(rb);
    return new ObjectMetadata[] {ra, rb};
  }

  private ObjectSync objectSync(TestNamespace ns, FreshnessBarrier barrier) throws Exception {
    StepExecutor executor = parts.executor(ns.name(), admin);
    PolicyStore policies = new PolicyStore(n -> Map.of(), List::of, () -> { });
    return new ObjectSync(objects.graph(), new DeletionPlanner(Duration.ofMinutes(1), Duration.ofSeconds(1)), executor,
        barrier, admin, parts.events, metrics, parts.reflectors(), new Discovery(client, Duration.ofSeconds(10),
        Clock.systemUTC()), policies, Clock.systemUTC(), new ObjectStates(),
        SettingsInForce.resolver(policies::settingsOf, objects.graph()::get), true);
  }

}
