package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 32 case 2, with the built-in collector as the oracle: the same world built twice, one root
 * deleted by syncgc (Synchronous), the other by kube-controller-manager's foreground deletion; once both
 * roots are gone, the same objects must survive with the same owner references. The worlds are trees
 * and diamonds under the root whose objects may also be owned by co-owners outside it, alive, being
 * deleted but held by another controller's finalizer, or being orphaned while held: what SPEC now calls
 * solid, as the built-in collector's classifyReferences does; co-owners may be cluster-scoped
 * ({@code ClusterWidget}s, which a namespaced object may name) or ghosts (a reference to an owner that
 * never existed: absent, so it keeps nothing) or a second root deleted at the same moment (two
 * cascades competing for what both own). (Rings and deadlines are where SPEC
 * differs from the built-in collector on purpose: not generated here.) The built-in side goes first;
 * then, on syncgc's side, objects it deleted use each other ({@link UsageEdges}, SPEC "In use": the
 * built-in collector has no usage): the survivors must still match, and users go first by etcd revisions. Seeded: the seeds that once
 * found a difference are kept; a run adds 6 new seeds (or {@code syncgc.differential.worlds}), printed;
 * {@code -Dsyncgc.differential.seed=S} replays one.
 */
@ExtendWith(SharedOperator.Extension.class)
class CoOwnerDifferentialIT {
  private static final String HOLD = "example.com/hold";
  /** New random worlds per run: {@code -Dsyncgc.differential.worlds=N} (make e2e-differential), 6 by default. */
  private static final int RANDOM_WORLDS = Integer.getInteger("syncgc.differential.worlds", 6);
  /** Seeds that found a difference (syncgc deleted a dependent of a held co-owner) before the fix. */
  private static final long[] KEPT = {1L, 7L, 3407371106923224603L, 3226415386350830966L};
  private static final KubernetesClient client = TestCluster.get().client();
  private static final List<String> namespaces = new ArrayList<>();
  private static final Map<String, Integer> stats = new TreeMap<>();

  /**
   * ALIVE, HELD (deleted, another controller's finalizer on it), ORPHANING_HELD (orphaned, held),
   * GHOST (never existed), CASCADING (a second root deleted at the same moment as o0: Synchronous on
   * the syncgc side, foreground on the built-in side; two cascades competing for what both own).
   */
  enum CoOwner { ALIVE, HELD, ORPHANING_HELD, GHOST, CASCADING }

  /** A co-owner's state and scope (cluster-scoped: a ClusterWidget named after its world's namespace). */
  record Co(CoOwner state, boolean cluster) {
    @Override
    public String toString() {
      return (cluster ? "cluster " : "") + state;
    }
  }

  static LongStream seeds() {
    Long replay = Long.getLong("syncgc.differential.seed");
    return replay != null ? LongStream.of(replay) : LongStream.concat(LongStream.of(KEPT), new Random().longs(RANDOM_WORLDS));
  }

  @BeforeAll
  static void needsTheBuiltInCollector() {
    BuiltInCollector.assumeRunning("its foreground deletion is the oracle");
  }

  @AfterAll
  static void cleanUp() {
    for (GenericKubernetesResource w : TestCrds.clusterWidgets(client).list().getItems()) {
      if (namespaces.stream().anyMatch(ns -> w.getMetadata().getName().startsWith(ns + "-"))) {
        MetadataPatches.removeFinalizer(Widgets.clusterWidget(client, w.getMetadata().getName()), HOLD);
        Widgets.clusterWidget(client, w.getMetadata().getName()).delete();
      }
    }
    for (String ns : namespaces) {
      for (GenericKubernetesResource w : TestCrds.widgets(client).inNamespace(ns).list().getItems()) {
        MetadataPatches.removeFinalizer(Widgets.widget(client, ns, w.getMetadata().getName()), HOLD);
      }
      Namespaces.deleteAsync(client, ns);
    }
    System.out.println("co-owner differential: " + stats);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void syncgcKeepsWhatTheBuiltInCollectorKeeps(long seed) {
    World world = World.random(seed, LongStream.of(KEPT).anyMatch(k -> k == seed));
    System.out.println("seed " + seed + ": " + world);
    String bySyncgc = Namespaces.create(client, "differential-syncgc");
    String byBuiltIn = Namespaces.create(client, "differential-builtin");
    namespaces.add(bySyncgc);
    namespaces.add(byBuiltIn);

    world.build(bySyncgc, true);
    world.build(byBuiltIn, false);
    Widgets.widget(client, byBuiltIn, "o0").withPropagationPolicy(DeletionPropagation.FOREGROUND).delete();
    world.cascading(byBuiltIn).forEach(c -> c.withPropagationPolicy(DeletionPropagation.FOREGROUND).delete());
    awaitRoots(world, byBuiltIn);
    // what the built-in collector deletes in the background after the root (dangling references) settles
    Map<String, List<String>> expected = await("the survivors settle").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofSeconds(1)).until(() -> survivors(byBuiltIn), s -> s.equals(survivors(byBuiltIn)));
    // on syncgc's side, objects the built-in collector deleted use each other (SPEC "In use")
    UsageEdges uses = UsageEdges.random(seed, IntStream.range(1, world.objects()).mapToObj(i -> "o" + i)
        .filter(o -> !expected.containsKey(o)).toList());
    System.out.println("seed " + seed + ": " + uses);
    uses.annotate(client, bySyncgc);

    try (DeletionOrder order = DeletionOrder.widgets(client, bySyncgc)) {
      Widgets.widget(client, bySyncgc, "o0").delete();
      world.cascading(bySyncgc).forEach(c -> c.delete());
      awaitRoots(world, bySyncgc);
      await("syncgc's survivors match the built-in collector's").atMost(Duration.ofSeconds(10))
          .untilAsserted(() -> assertEquals(expected, survivors(bySyncgc), "seed " + seed + ": " + world));
      order.checkWatches();
      assertEquals(List.of(), uses.outOfOrder(world.owners(), order, stats), "seed " + seed + ": " + world + " " + uses
          + "; deletions: " + order.deletions());
    }
    stats.merge("usage edges", uses.edges().size(), Integer::sum);
    stats.merge("worlds", 1, Integer::sum);
    stats.merge("objects", world.objects(), Integer::sum);
    stats.merge("survivors", expected.size(), Integer::sum);
    for (Co c : world.coOwners) {
      stats.merge("co-owner " + c, 1, Integer::sum);
    }
  }

  private static void awaitRoots(World world, String ns) {
    await("the root goes in " + ns).atMost(Duration.ofSeconds(60)).until(() -> Widgets.widget(client, ns, "o0").get() == null);
    for (Resource<GenericKubernetesResource> c : world.cascading(ns)) {
      await("the second root goes in " + ns).atMost(Duration.ofSeconds(60)).until(() -> c.get() == null);
    }
  }

  /** Every object left but the co-owners, with the names of the owners it still names (without the world's). */
  private static Map<String, List<String>> survivors(String ns) {
    return TestCrds.widgets(client).inNamespace(ns).list().getItems().stream()
        .filter(w -> !w.getMetadata().getName().startsWith("c"))
        .collect(Collectors.toMap(w -> w.getMetadata().getName(), w -> w.getMetadata().getOwnerReferences().stream()
            .map(r -> r.getName().replace(ns + "-", "")).sorted().toList(), (a, b) -> a, TreeMap::new));
  }

  /** o0 is the root; o(i) is owned by one or two of o0..o(i-1) and perhaps by a co-owner c(k). */
  record World(List<Co> coOwners, List<List<String>> owners) {
    /** @param kept a seed kept for what it found: its world as it was then, without the later co-owner c3 */
    static World random(long seed, boolean kept) {
      Random r = new Random(seed);
      List<Co> coOwners = new ArrayList<>();
      for (int k = 0; k < 3; k++) {
        // the draws of the kept seeds first: their co-owners as they were found (namespaced, never a ghost)
        coOwners.add(new Co(CoOwner.values()[r.nextInt(3)], false));
      }
      int n = 3 + r.nextInt(6);
      List<List<String>> owners = new ArrayList<>();
      owners.add(List.of());
      for (int i = 1; i < n; i++) {
        List<String> of = new ArrayList<>(List.of("o" + r.nextInt(i)));
        if (i > 1 && r.nextInt(3) == 0) {
          String second = "o" + r.nextInt(i);
          if (!of.contains(second)) {
            of.add(second); // a diamond
          }
        }
        if (r.nextInt(2) == 0) {
          of.add("c" + r.nextInt(coOwners.size()));
        }
        owners.add(of);
      }
      if (kept) {
        return new World(coOwners, owners);
      }
      // then one more co-owner, perhaps cluster-scoped or a ghost, drawn after what the kept seeds drew
      coOwners.add(new Co(CoOwner.values()[r.nextInt(CoOwner.values().length)], r.nextBoolean()));
      for (List<String> of : owners) {
        if (!of.isEmpty() && r.nextInt(3) == 0) {
          of.add("c3");
        }
      }
      return new World(coOwners, owners);
    }

    int objects() {
      return owners.size();
    }

    /**
     * Co-owners first (put in their state: deleted while a finalizer holds them, orphaning settled),
     * then the root (opted in for syncgc), then its objects in order; every reference blocks its
     * owner's deletion, so foreground deletion waits for each.
     */
    void build(String ns, boolean synchronous) {
      Map<String, GenericKubernetesResource> made = new TreeMap<>();
      for (int k = 0; k < coOwners.size(); k++) {
        made.put("c" + k, coOwner(ns, k, synchronous).get());
      }
      Widgets.Builder root = Widgets.create(client, ns, "o0");
      made.put("o0", synchronous ? root.synchronous().applyAndAwaitFinalizer() : root.apply());
      for (int i = 1; i < owners.size(); i++) {
        Widgets.Builder b = Widgets.create(client, ns, "o" + i);
        for (String owner : owners.get(i)) {
          b.ownedBy(made.get(owner), true, false);
        }
        made.put("o" + i, b.apply());
      }
      for (int k = 0; k < coOwners.size(); k++) {
        Resource<GenericKubernetesResource> co = coOwnerResource(ns, k);
        String name = "c" + k;
        switch (coOwners.get(k).state()) {
          case ALIVE, GHOST, CASCADING -> { }
          case HELD -> co.withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
          case ORPHANING_HELD -> {
            co.withPropagationPolicy(DeletionPropagation.ORPHAN).delete();
            await("the built-in collector orphans " + name).atMost(Duration.ofSeconds(30)).until(() ->
                !co.get().getMetadata().getFinalizers().contains("orphan"));
          }
        }
        if (coOwners.get(k).state() == CoOwner.HELD || coOwners.get(k).state() == CoOwner.ORPHANING_HELD) {
          await(name + " marked as deleted").atMost(Duration.ofSeconds(10))
              .until(() -> co.get().getMetadata().getDeletionTimestamp() != null);
        }
      }
    }

    /** The co-owners deleted with the root. */
    List<Resource<GenericKubernetesResource>> cascading(String ns) {
      List<Resource<GenericKubernetesResource>> out = new ArrayList<>();
      for (int k = 0; k < coOwners.size(); k++) {
        if (coOwners.get(k).state() == CoOwner.CASCADING) {
          out.add(coOwnerResource(ns, k));
        }
      }
      return out;
    }

    /** Creates co-owner k (a ghost: only the object a reference to it is made from, never created). */
    private java.util.function.Supplier<GenericKubernetesResource> coOwner(String ns, int k, boolean synchronous) {
      Co co = coOwners.get(k);
      Widgets.Builder b = co.cluster() ? Widgets.createCluster(client, ns + "-c" + k) : Widgets.create(client, ns, "c" + k);
      if (co.state() == CoOwner.GHOST) {
        GenericKubernetesResource ghost = b.build();
        ghost.getMetadata().setUid(java.util.UUID.randomUUID().toString());
        return () -> ghost;
      }
      if (co.state() == CoOwner.CASCADING) {
        return synchronous ? b.synchronous()::applyAndAwaitFinalizer : b::apply;
      }
      return () -> b.finalizer(HOLD).apply();
    }

    private Resource<GenericKubernetesResource> coOwnerResource(String ns, int k) {
      return coOwners.get(k).cluster() ? Widgets.clusterWidget(client, ns + "-c" + k)
          : Widgets.widget(client, ns, "c" + k);
    }
  }
}
