package dev.syncgc.core.deletion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * SPEC "Keep one dependent" over the random worlds of the other property tests ({@link Worlds}: rings,
 * diamonds, waves, deadlines, other controllers' finalizers, invalid references), with random objects
 * kept by {@code syncgc.dev/keep: "true"}, by an invalid value, or by a policy (label {@code data=true};
 * an annotation {@code "false"} wins over it), and in some worlds random uses ({@code syncgc.dev/uses}).
 * Which objects are kept is read here from the annotations and labels, not by syncgc's code. A kept
 * object is never in a plan's deletions, whatever the graph; in whole deletions it survives, and (in worlds
 * without uses, where no hold stalls a cascade for good) keep never makes a cascade delete more, nor the
 * deleted owner wait longer. How often kept objects
 * meet rings, waves and uses is printed (jqwik statistics) with a floor for each.
 */
class KeepPropertiesTest {
  private static final String POLICY_LABEL = "data";
  private static final DeletionSettings POLICY = DeletionSettings.NONE.with(Setting.KEEP, true);
  private static final DeletionSettings SYNCHRONOUS =
      DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS);
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  /** How an object is marked; {@code FALSE_OVER_POLICY} is labelled for the policy and annotated false: not kept. */
  enum Mark { NONE, TRUE, INVALID, POLICY, FALSE_OVER_POLICY }

  record World(List<ObjectMetadata> objects, boolean uses) {}

  /** Kept, as SPEC says, from what the object carries. */
  static boolean kept(ObjectMetadata o) {
    String value = o.annotation(Names.KEEP);
    return value != null ? !value.equals("false") : "true".equals(o.labels().get(POLICY_LABEL));
  }

  /** The object's own settings, with the keeping policy beneath when its label matches. */
  static DeletionSettings settingsOf(ObjectMetadata o) {
    DeletionSettings own = DeletionSettings.fromAnnotations(o.annotations());
    return "true".equals(o.labels().get(POLICY_LABEL)) ? own.orElse(POLICY) : own;
  }

  private static Arbitrary<Mark> marks() {
    return Arbitraries.frequency(net.jqwik.api.Tuple.of(10, Mark.NONE), net.jqwik.api.Tuple.of(3, Mark.TRUE),
        net.jqwik.api.Tuple.of(1, Mark.INVALID), net.jqwik.api.Tuple.of(2, Mark.POLICY),
        net.jqwik.api.Tuple.of(1, Mark.FALSE_OVER_POLICY));
  }

  /** The world's objects marked, and in about a third of the worlds, half the objects using one other. */
  private static World marked(List<ObjectMetadata> built, List<Mark> marks, List<Integer> targets, boolean uses) {
    List<ObjectMetadata> out = new ArrayList<>();
    int n = built.size();
    for (int i = 0; i < n; i++) {
      ObjectMetadata o = built.get(i);
      Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
      Map<String, String> labels = new LinkedHashMap<>(o.labels());
      switch (marks.get(i)) {
        case NONE -> { }
        case TRUE -> annotations.put(Names.KEEP, "true");
        case INVALID -> annotations.put(Names.KEEP, "yes");
        case POLICY -> labels.put(POLICY_LABEL, "true");
        case FALSE_OVER_POLICY -> {
          labels.put(POLICY_LABEL, "true");
          annotations.put(Names.KEEP, "false");
        }
      }
      if (uses && targets.get(i) % 2 == 0) {
        annotations.put(Names.USES, "widget/" + Worlds.uid(targets.get(i) / 2 % n, n));
      }
      out.add(new ObjectMetadata(o.ref(), o.resourceVersion(), o.owners(), o.finalizers(), o.deletionTimestamp(),
          o.deletionGracePeriodSeconds(), annotations, labels));
    }
    return new World(out, uses);
  }

  private static Arbitrary<World> worldsFrom(Arbitrary<List<Worlds.ObjSpec>> specs) {
    return specs.flatMap(s -> Combinators.combine(marks().list().ofSize(s.size()),
        Arbitraries.integers().between(0, 4 * Worlds.MAX_OBJECTS).list().ofSize(s.size()),
        Arbitraries.integers().between(0, 2))
        .as((marks, targets, uses) -> marked(Worlds.build(s), marks, targets, uses == 0)));
  }

  @Provide
  Arbitrary<World> snapshots() {
    return worldsFrom(Worlds.snapshots());
  }

  @Provide
  Arbitrary<World> alive() {
    return worldsFrom(Worlds.alive());
  }

  /** Every object's settings in force as the operator works them out: a policy beneath, Synchronous when nothing says. */
  private static Function<ObjectMetadata, SettingsInForce> inForce() {
    return o -> {
      SettingsInForce own = SettingsInForce.of(o, settingsOf(o), Optional.empty());
      return new SettingsInForce(own.inForce().with(Setting.PROPAGATION,
          own.propagation().or(() -> Optional.of(Propagation.SYNCHRONOUS))), false, own.own());
    };
  }

  @Property(tries = 500)
  void aKeptObjectIsNeverInAPlansDeletions(@ForAll("snapshots") World w) {
    var graph = TestObjects.graph();
    w.objects().forEach(graph::upsert);
    BruteForce bf = BruteForce.of(w.objects());
    WorldFeatures features = new WorldFeatures(byUid(w.objects()));
    boolean keptDependent = false;
    for (ObjectMetadata owner : w.objects()) {
      if (!owner.beingDeleted() || !owner.hasFinalizer(Names.FINALIZER)) {
        continue;
      }
      DeletionSettings own = DeletionSettings.fromAnnotations(owner.annotations());
      SettingsInForce settings = new SettingsInForce(SYNCHRONOUS.with(Setting.TIMEOUT, own.timeout())
          .with(Setting.ON_TIMEOUT, own.onTimeout().orElse(OnTimeout.RELEASE)), false, DeletionSettings.NONE);
      for (ObjectMetadata d : w.objects()) {
        keptDependent |= kept(d) && !d.beingDeleted() && bf.validlyOwnedBy(d, owner.uid());
      }
      for (Step step : planner.plan(graph, owner, settings, Worlds.NOW, uid -> null, List.of(), inForce())) {
        if (step instanceof Step.DeleteDependent del) {
          assertFalse(kept(del.dependent()), owner.uid() + " deletes the kept " + del.dependent());
        }
        if (step instanceof Step.DropReference drop) {
          assertEquals(kept(drop.dependent()), drop.kept(), drop.toString());
        }
      }
    }
    statistics(w, features, keptDependent, "a live dependent of an owner under deletion is kept");
  }

  @Property(tries = 300)
  void aWholeDeletionNeverRemovesAKeptObjectNorMoreThanWithoutKeepNorLater(@ForAll("alive") World w) {
    BruteForce bf = BruteForce.of(w.objects());
    String root = w.objects().stream().map(ObjectMetadata::uid)
        .filter(u -> w.objects().stream().anyMatch(d -> bf.edge(u, d.uid()))).findFirst()
        .orElse(w.objects().get(0).uid());
    boolean keptBelow = bf.reach(root).stream().anyMatch(u -> kept(byUid(w.objects()).get(u)));
    statistics(w, new WorldFeatures(byUid(w.objects())), keptBelow, "the deleted owner reaches a kept object");

    Set<String> withKeep = played(w.objects(), root, KeepPropertiesTest::settingsOf, false);
    Set<String> withoutKeep = played(w.objects(), root,
        o -> DeletionSettings.fromAnnotations(without(o.annotations())), false);
    Set<String> startedWithoutKeep = played(w.objects(), root,
        o -> DeletionSettings.fromAnnotations(without(o.annotations())), true);

    for (String uid : withKeep) {
      assertTrue(uid.equals(root) || !kept(byUid(w.objects()).get(uid)), "removed the kept " + uid + " in " + w);
    }
    if (!w.uses()) {
      // with uses, a cascade without keep may stall for good behind a dependent a user outside holds (no
      // deadline passes here), while keeping that dependent lets the rest of the cascade, a lower wave
      // included, go on: there, only the survival of what is kept is compared
      Set<String> more = new HashSet<>(withKeep);
      more.removeAll(startedWithoutKeep);
      assertEquals(Set.of(), more, "deleted with keep only, in " + w);
      assertTrue(!withoutKeep.contains(root) || withKeep.contains(root), "the owner waited for a kept object: " + w);
    }
  }

  /** The uids removed (and, if {@code marked}, those left marked as deleted) once the deletion of {@code root} settles. */
  private Set<String> played(List<ObjectMetadata> world, String root, Function<ObjectMetadata, DeletionSettings> settings,
      boolean marked) {
    DeletionRun run = new DeletionRun(planner, TestObjects.graph(), world, o -> settings.apply(o).orElse(SYNCHRONOUS),
        Worlds.NOW, new DeletionRun.Listener() {});
    run.delete(root);
    run.run(200);
    run.releaseForeignFinalizers(false);
    run.run(200);
    Set<String> out = new HashSet<>(run.removed());
    if (marked) {
      run.objects().values().stream().filter(ObjectMetadata::beingDeleted).forEach(o -> out.add(o.uid()));
    }
    return out;
  }

  private static Map<String, String> without(Map<String, String> annotations) {
    Map<String, String> out = new LinkedHashMap<>(annotations);
    out.remove(Names.KEEP);
    return out;
  }

  private static Map<String, ObjectMetadata> byUid(List<ObjectMetadata> objects) {
    Map<String, ObjectMetadata> out = new LinkedHashMap<>();
    objects.forEach(o -> out.put(o.uid(), o));
    return out;
  }

  private static void statistics(World w, WorldFeatures features, boolean keptInPlay, String label) {
    Statistics.label(label).collect(keptInPlay);
    Statistics.label("invalid keep value").collect(w.objects().stream().anyMatch(o -> "yes".equals(o.annotation(Names.KEEP))));
    Statistics.label("kept by a policy").collect(w.objects().stream()
        .anyMatch(o -> o.annotation(Names.KEEP) == null && kept(o)));
    if (keptInPlay) {
      Statistics.label("kept in play, with a ring").collect(features.hasRing());
      Statistics.label("kept in play, with waves").collect(w.objects().stream().anyMatch(o -> Simulation.wave(o) != 0));
      Statistics.label("kept in play, with uses").collect(w.uses());
    }
    Statistics.label(label).coverage(c -> c.check(true).percentage(p -> p >= 15));
    for (String with : List.of("a ring", "waves", "uses")) {
      Statistics.label("kept in play, with " + with).coverage(c -> c.check(true).count(k -> k >= 2));
    }
    for (String with : List.of("a ring", "uses")) {
      Statistics.label("kept in play, with " + with).coverage(c -> c.check(false).count(k -> k >= 2));
    }
    Statistics.label("invalid keep value").coverage(c -> c.check(true).percentage(p -> p >= 5));
    Statistics.label("kept by a policy").coverage(c -> c.check(true).percentage(p -> p >= 5));
  }
}
