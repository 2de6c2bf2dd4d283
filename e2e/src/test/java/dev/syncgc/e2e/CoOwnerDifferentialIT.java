package dev.syncgc.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.e2e.DifferentialWorld.Co;
import dev.syncgc.e2e.DifferentialWorld.Extra;
import dev.syncgc.e2e.Survivors.Left;
import dev.syncgc.e2e.support.AdmissionPolicies;
import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.DeletionOrder.Deletion;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * syncgc against the built-in collector (the oracle) on random worlds ({@link DifferentialWorld}): the
 * same world built twice, one root deleted by kube-controller-manager's foreground deletion, then the
 * other by syncgc (Synchronous). Two claims, both judged after the built-in side has settled:
 * <ol>
 *   <li>what is left (objects and co-owners, the owners they name, whether they are being deleted) is
 *   the same on both sides, but for the {@link Known} differences;
 *   <li>every object the built-in side deleted was gone on syncgc's side BEFORE its root, by the etcd
 *   revisions of their deletions ({@link DeletionOrder}): what only a synchronous cascade does. (Left
 *   alone, the built-in collector deletes on syncgc's side too, after the root: with a syncgc that
 *   only dropped its finalizer, claim 1 alone would still hold.)
 * </ol>
 * On syncgc's side only, objects the built-in side deleted also use each other ({@link UsageEdges}: the
 * built-in collector has no usage): users go first, by etcd revisions. Co-owners outside the tree are
 * alive, held by another controller's finalizer, being orphaned while held, ghosts, cluster-scoped, or a
 * second root; each new world adds one {@link Extra}: a ring, a refused DELETE, invalid owner references
 * of the three kinds, a user. Seeded: the seeds that once found a difference are kept; a run adds one new
 * seed per extra (or {@code syncgc.differential.worlds}, the rest drawing their extra), printed;
 * {@code -Dsyncgc.differential.seed=S} replays one.
 */
@ExtendWith(SharedOperator.Extension.class)
class CoOwnerDifferentialIT {
  /** New random worlds per run: {@code -Dsyncgc.differential.worlds=N} (make e2e-differential), one per extra by default. */
  private static final int RANDOM_WORLDS = Integer.getInteger("syncgc.differential.worlds", Extra.values().length - 1);
  /** Seeds that found a difference (syncgc deleted a dependent of a held co-owner) before the fix. */
  private static final long[] KEPT = {1L, 7L, 3407371106923224603L, 3226415386350830966L};
  private static final KubernetesClient client = TestCluster.get().client();
  private static final List<String> namespaces = new ArrayList<>();
  private static final Map<String, Integer> stats = new TreeMap<>();
  private static final List<AdmissionPolicies.Policy> policies = new ArrayList<>();
  private static GenericKubernetesResource elsewhere;
  private static long started;

  /**
   * Every known difference between syncgc and the built-in collector that the worlds meet, each with
   * its reason: what the built-in side leaves is turned into what syncgc's must leave by these alone.
   */
  enum Known {
    STUCK_FOREGROUND("the built-in collector's foreground deletion waits for ever on a dependent it cannot"
        + " delete (a DELETE an admission policy refuses; an owner of an unknown kind, which it retries"
        + " for ever; a cluster-scoped dependent of a namespaced owner, which it never collects), and the"
        + " root and the owners between stay waiting; syncgc releases the root at its deadline (SPEC"
        + " \"Synchronous deletion\" 2: a refused call never holds X past its deadline) and never follows an"
        + " invalid reference (SPEC \"Coexistence with Kubernetes\"): what waits on the built-in side is gone",
        (world, left, name) -> left.get(name).phase().equals("waiting")),
    RING_KEPT_ALIVE("a ring whose only outside owners are being deleted is garbage: syncgc deletes it with the"
        + " cascade, the built-in collector leaves it alive for ever, each member kept by the other (SPEC"
        + " \"Synchronous deletion\" 2)",
        (world, left, name) -> world.extra() == Extra.RING && name.startsWith("r") && left.keySet().stream()
            .filter(r -> r.startsWith("r")).allMatch(r -> left.get(r).owners().stream()
                .allMatch(o -> o.startsWith("r") || !left.containsKey(o)))),
    DANGLING_REFERENCES("references to owners that are gone are not compared: the built-in collector removes"
        + " them at its own pace, and never from an object it cannot delete (a refused one still names the"
        + " root syncgc released at its deadline): Survivors.compared", (world, left, name) -> false),
    USES("the built-in collector has no usage (SPEC \"In use\"): uses are added on syncgc's side only, among"
        + " objects the built-in side deleted, and judged by their order alone", (world, left, name) -> false);

    private final String reason;
    private final Gone goneOnSyncgcSide;

    /** Whether an object the built-in side left is gone on syncgc's side. */
    interface Gone {
      boolean test(DifferentialWorld world, Map<String, Left> builtIn, String name);
    }

    Known(String reason, Gone goneOnSyncgcSide) {
      this.reason = reason;
      this.goneOnSyncgcSide = goneOnSyncgcSide;
    }

    /** What syncgc's side must leave, from what the built-in side left. */
    static Map<String, Left> expected(DifferentialWorld world, Map<String, Left> builtIn) {
      Map<String, Left> out = new TreeMap<>();
      builtIn.forEach((name, left) -> {
        Known known = Arrays.stream(values()).filter(k -> k.goneOnSyncgcSide.test(world, builtIn, name)).findFirst()
            .orElse(null);
        if (known == null) {
          out.put(name, left);
        } else {
          stats.merge("known difference " + known.name(), 1, Integer::sum);
        }
      });
      return Survivors.compared(out);
    }

    @Override
    public String toString() {
      return name() + " (" + reason + ")";
    }
  }

  static LongStream seeds() {
    Long replay = Long.getLong("syncgc.differential.seed");
    if (replay != null) {
      return LongStream.of(replay);
    }
    Random r = new Random();
    Extra[] extras = Extra.values();
    LongStream fresh = IntStream.range(0, RANDOM_WORLDS)
        .mapToLong(i -> i + 1 < extras.length ? extras[i + 1].seed(r) : r.nextLong());
    return LongStream.concat(LongStream.of(KEPT), fresh);
  }

  @BeforeAll
  static void needsTheBuiltInCollector() {
    BuiltInCollector.assumeRunning("its foreground deletion is the oracle");
    started = System.nanoTime();
    String ns = Namespaces.create(client, "differential-elsewhere");
    namespaces.add(ns);
    elsewhere = Widgets.create(client, ns, "x").apply();
    GenericKubernetesResource probe = Widgets.create(client, ns, "probe").label(AdmissionPolicies.PROTECTED, "true")
        .annotate(DifferentialWorld.PINNED, elsewhere.getMetadata().getUid()).ownedBy(elsewhere).apply();
    policies.add(AdmissionPolicies.denyDeleteOfProtected(client, "e2e-syncgc-differential", TestCrds.GROUP, "widgets",
        null, () -> AdmissionPolicies.refused(() -> Widgets.widget(client, ns, "probe").dryRun().delete())));
    policies.add(AdmissionPolicies.pinOwnerReferences(client, "e2e-syncgc-differential-pin",
        DifferentialWorld.PINNED, () -> AdmissionPolicies.refused(() -> Widgets.widget(client, ns, "probe").dryRun()
            .patch(PatchContext.of(PatchType.JSON), "[{\"op\":\"remove\",\"path\":\"/metadata/ownerReferences\"}]"))));
    System.out.println("differential: policies in force; probe " + probe.getMetadata().getName());
  }

  @AfterAll
  static void cleanUp() {
    policies.forEach(AdmissionPolicies.Policy::close);
    for (GenericKubernetesResource w : TestCrds.clusterWidgets(client).list().getItems()) {
      if (namespaces.stream().anyMatch(ns -> w.getMetadata().getName().startsWith(ns + "-"))) {
        MetadataPatches.removeFinalizer(Widgets.clusterWidget(client, w.getMetadata().getName()), DifferentialWorld.HOLD);
        MetadataPatches.removeFinalizer(Widgets.clusterWidget(client, w.getMetadata().getName()), "orphan");
        Widgets.clusterWidget(client, w.getMetadata().getName()).delete();
      }
    }
    for (String ns : namespaces) {
      for (GenericKubernetesResource w : TestCrds.widgets(client).inNamespace(ns).list().getItems()) {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns, w.getMetadata().getName()), DifferentialWorld.HOLD);
        // the built-in collector's orphaning, refused while pinned, retries only after its backoff
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns, w.getMetadata().getName()), "orphan");
      }
      Namespaces.deleteAsync(client, ns);
    }
    System.out.printf("differential: %s; %.1f s%n", stats, (System.nanoTime() - started) / 1e9);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void syncgcLeavesWhatTheBuiltInCollectorLeavesAndDeletesItBeforeTheRoot(long seed) {
    DifferentialWorld world = DifferentialWorld.random(seed, LongStream.of(KEPT).anyMatch(k -> k == seed));
    System.out.println("seed " + seed + ": " + world);
    String bySyncgc = Namespaces.create(client, "differential-syncgc");
    String byBuiltIn = Namespaces.create(client, "differential-builtin");
    namespaces.add(bySyncgc);
    namespaces.add(byBuiltIn);
    world.build(client, bySyncgc, true, elsewhere);
    world.build(client, byBuiltIn, false, elsewhere);

    world.deleteRoots(client, byBuiltIn, false);
    Map<String, Left> builtIn = Survivors.settle(client, byBuiltIn, world,
        Duration.ofMillis(world.sticks() ? 2000 : 1000));
    Map<String, Left> expected = Known.expected(world, builtIn);
    UsageEdges uses = UsageEdges.random(seed, Survivors.deleted(world, builtIn)).with(world.fixedUses());
    System.out.println("seed " + seed + ": built-in side left " + builtIn + "; " + uses);
    uses.annotate(client, bySyncgc);

    String what = "seed " + seed + ": " + world;
    try (DeletionOrder order = DeletionOrder.widgets(client, bySyncgc)) {
      world.deleteRoots(client, bySyncgc, true);
      order.awaitDeleted(Duration.ofSeconds(60), "o0");
      Awaitility.await("syncgc's side leaves what the built-in side left").atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertEquals(expected, Survivors.compared(Survivors.of(client, bySyncgc)), what));
      List<String> gone = Survivors.deleted(world, expected);
      order.awaitDeleted(Duration.ofSeconds(10), gone.toArray(String[]::new));
      order.checkWatches();
      assertEquals(List.of(), afterTheRoot(gone, order), what + "; deletions: " + order.deletions());
      assertEquals(List.of(), uses.outOfOrder(world.owners(), order, stats), what + " " + uses
          + "; deletions: " + order.deletions());
    }
    stats.merge("usage edges", uses.edges().size(), Integer::sum);
    stats.merge("worlds", 1, Integer::sum);
    stats.merge("objects compared", world.objects(), Integer::sum);
    stats.merge("deleted before the root", Survivors.deleted(world, expected).size(), Integer::sum);
    stats.merge("survivors", expected.size(), Integer::sum);
    stats.merge("extra " + world.extra(), 1, Integer::sum);
    for (Co c : world.coOwners()) {
      stats.merge("co-owner " + c, 1, Integer::sum);
    }
  }

  /** The objects whose deletion's revision is above the root's: deleted after it, not by its cascade. */
  private static List<String> afterTheRoot(List<String> gone, DeletionOrder order) {
    long root = revision(order, "o0");
    List<String> late = new ArrayList<>();
    for (String name : gone) {
      long at = revision(order, name);
      if (at > root) {
        late.add(name + " at revision " + at + ", after the root at " + root);
      }
    }
    return late;
  }

  private static long revision(DeletionOrder order, String name) {
    return order.deletions().stream().filter(d -> d.name().equals(name)).mapToLong(Deletion::resourceVersion)
        .findFirst().orElseThrow(() -> new AssertionError(name + " was not seen deleted: " + order.deletions()));
  }
}
