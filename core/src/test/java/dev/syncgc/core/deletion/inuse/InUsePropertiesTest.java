package dev.syncgc.core.deletion.inuse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.deletion.BruteForce;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Simulation;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.deletion.Worlds;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

/**
 * SPEC "In use" over random worlds: random objects name random others in {@code syncgc.dev/uses}
 * (in or out of the cascade, across waves and subtrees, in cycles, in other namespaces so that they
 * name nothing), one object is deleted and the whole deletion played. Judged by a brute-force oracle
 * that reads the annotations itself: no object is deleted by a cascade while an object that names it
 * exists, unless they use each other (a cycle, released as a unit), the user is an owner above it
 * being deleted (ownership and use in a ring: its cascade deletes it), or use and ownership together
 * close a cycle (the user must go after its dependents, one of which must go after the used object). How often each case came up is
 * printed.
 */
class InUsePropertiesTest {
  record Run(List<ObjectMetadata> world, String root) {}

  @Provide
  Arbitrary<Run> runs() {
    return Worlds.alive().flatMap(specs -> Combinators.combine(
        Arbitraries.integers().between(0, 99).list().ofSize(specs.size()),
        Arbitraries.integers().between(0, Worlds.MAX_OBJECTS - 1).list().ofSize(2 * specs.size()),
        Arbitraries.integers().between(0, Worlds.MAX_OBJECTS - 1),
        Arbitraries.integers().between(0, 2))
        .as((chance, targets, root, cycle) -> {
          List<ObjectMetadata> world = new ArrayList<>();
          List<ObjectMetadata> built = Worlds.build(specs);
          int n = built.size();
          for (int i = 0; i < n; i++) {
            ObjectMetadata o = built.get(i);
            int c = chance.get(i);
            if (c < 45) { // about half the objects use one or two others
              String uses = "widget/" + Worlds.uid(targets.get(2 * i) % n, n)
                  + (c < 15 ? ", widgets.example.com/" + Worlds.uid(targets.get(2 * i + 1) % n, n) : "");
              Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
              annotations.put(Names.USES, uses);
              o = new ObjectMetadata(o.ref(), o.resourceVersion(), o.owners(), o.finalizers(), o.deletionTimestamp(),
                  o.deletionGracePeriodSeconds(), annotations, o.labels());
            }
            world.add(o);
          }
          String rootUid = Worlds.uid(root % n, n);
          BruteForce bf = BruteForce.of(world);
          List<Integer> below = new ArrayList<>();
          for (int i = 0; i < n; i++) {
            if (bf.edge(rootUid, world.get(i).uid())) {
              below.add(i);
            }
          }
          if (cycle == 0 && below.size() >= 2) { // a third of the runs: two of its dependents use each other
            int a = below.get(0);
            int b = below.get(1);
            world.set(a, using(world.get(a), "widget/" + world.get(b).ref().name()));
            world.set(b, using(world.get(b), "widget/" + world.get(a).ref().name()));
          }
          return new Run(world, rootUid);
        }));
  }

  private static ObjectMetadata using(ObjectMetadata o, String uses) {
    Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
    annotations.put(Names.USES, uses);
    return new ObjectMetadata(o.ref(), o.resourceVersion(), o.owners(), o.finalizers(), o.deletionTimestamp(),
        o.deletionGracePeriodSeconds(), annotations, o.labels());
  }

  /** Objects in {@code seen} that name {@code used} (read here, not by syncgc's code), but not itself. */
  private static List<ObjectMetadata> namers(ObjectMetadata used, Map<String, ObjectMetadata> seen) {
    List<ObjectMetadata> out = new ArrayList<>();
    for (ObjectMetadata o : seen.values()) {
      String uses = o.annotation(Names.USES);
      if (uses == null || o.uid().equals(used.uid()) || used.ref().namespace() == null
          || !Objects.equals(o.ref().namespace(), used.ref().namespace())) {
        continue;
      }
      for (String entry : uses.split(",")) {
        String e = entry.strip();
        if (e.equals("widget/" + used.ref().name()) || e.equals("widgets.example.com/" + used.ref().name())) {
          out.add(o);
        }
      }
    }
    return out;
  }

  /** Whether {@code from} reaches {@code to} through namers (who names whom), in {@code seen}. */
  private static boolean reaches(ObjectMetadata from, ObjectMetadata to, Map<String, ObjectMetadata> seen) {
    Deque<ObjectMetadata> todo = new ArrayDeque<>(namers(from, seen));
    Set<String> visited = new HashSet<>();
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      if (o.uid().equals(to.uid())) {
        return true;
      }
      if (visited.add(o.uid())) {
        todo.addAll(namers(o, seen));
      }
    }
    return false;
  }

  @Property(tries = 500)
  void noObjectIsDeletedByACascadeWhileAnObjectThatNamesItIsLeft(@ForAll("runs") Run run) {
    List<String> problems = new ArrayList<>();
    Set<String> cases = new HashSet<>();
    Simulation.Checks checks = new Simulation.Checks() {
      @Override
      public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {
        BruteForce bf = new BruteForce(seen);
        for (Step step : steps) {
          if (step instanceof Step.WaitForUsers) {
            cases.add("an owner held in use");
          }
          if (!(step instanceof Step.DeleteDependent del)) {
            continue;
          }
          ObjectMetadata d = seen.get(del.dependent().uid());
          for (ObjectMetadata user : namers(d, seen)) {
            if (below(bf, user.uid(), d.uid(), seen)) {
              cases.add("a user below what it uses");
              continue;
            }
            if (user.beingDeleted() && below(bf, d.uid(), user.uid(), seen)) {
              cases.add("an owner being deleted that uses its own dependent"); // ownership and use in a ring
              continue;
            }
            if (reaches(d, d, seen)) {
              cases.add("a usage cycle released");
              continue;
            }
            if (goesBefore(bf, d, user, seen)) {
              cases.add("a cycle of use and ownership released"); // user first, d first: neither can
              continue;
            }
            problems.add(owner.uid() + " deletes " + d.uid() + " while " + user.uid() + " names it: " + seen.values());
          }
        }
      }

      @Override
      public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
          Map<String, ObjectMetadata> after) {}
    };
    Simulation setup = new Simulation(run.world(), checks);
    setup.delete(run.root());
    Simulation sim = new Simulation(List.copyOf(setup.objects().values()), checks);
    boolean settled = sim.run(200);
    sim.releaseHolds();
    settled &= sim.run(200);
    Map<String, ObjectMetadata> start = setup.objects();
    ObjectMetadata root = start.get(run.root());
    boolean rootUsed = !namers(root, start).isEmpty();
    Statistics.label("root").collect(rootUsed ? "in use" : "not in use");
    Statistics.label("root gone").collect(!sim.objects().containsKey(run.root()));
    Statistics.label("usage edges").collect(start.values().stream().filter(o -> o.annotation(Names.USES) != null)
        .count() > 3 ? "4+" : "0-3");
    cases.forEach(c -> Statistics.label("case").collect(c));
    assertTrue(settled, "settles");
    assertEquals(List.of(), problems);
  }

  /**
   * Uses order a deletion, they do not stop it: when every object that names something the deletion
   * removes is removed by it too, the same objects go as in the same world without any use (no
   * deadline passes in a run: an order that could never finish shows as objects left). The run without
   * uses is the oracle; a deadlock between waves and uses across subtrees failed this.
   */
  @Property(tries = 1000)
  void whenEveryUserGoesTooUsesRemoveNothingLessThanTheSameWorldWithoutThem(@ForAll("cascades") Run run) {
    List<String> without = Simulation.played(run.world().stream().map(o -> withoutUses(o)).toList(), run.root());
    Set<String> gone = Set.copyOf(without);
    Map<String, ObjectMetadata> world = new HashMap<>();
    run.world().forEach(o -> world.put(o.uid(), o));
    boolean usersGoToo = world.values().stream().filter(o -> gone.contains(o.uid()))
        .allMatch(used -> namers(used, world).stream().allMatch(u -> gone.contains(u.uid())));
    List<String> with = Simulation.played(run.world(), run.root());
    boolean crossesWaves = world.values().stream().anyMatch(o -> gone.contains(o.uid())
        && o.annotation(Names.DELETION_WAVE) != null) && world.values().stream()
        .anyMatch(o -> gone.contains(o.uid()) && !namers(o, world).isEmpty());
    Statistics.label("every user goes too").collect(usersGoToo);
    Statistics.label("waves and uses among what goes").collect(crossesWaves);
    Statistics.label("objects removed").collect(gone.size() > 6 ? "7+" : gone.size() > 3 ? "4-6" : "1-3");
    BruteForce bf = BruteForce.of(run.world());
    Statistics.label("an ownership ring among what goes").collect(gone.stream().anyMatch(o -> bf.ring(o).size() > 1));
    Assume.that(usersGoToo);
    assertEquals(gone, Set.copyOf(with), "removed with uses " + with + ", without " + without + " in " + brief(run.world()));
  }

  /**
   * A tree under the root {@code o0} (each object owned by one before it, some by two, some by an
   * object outside, some also by one after it: a ring when that one is below it), a few objects outside; waves on half the objects, uses on a third (one or two
   * objects each, inside or outside), some opted in, some held by another controller for a while.
   */
  @Provide
  Arbitrary<Run> cascades() {
    return Arbitraries.integers().between(2, 12).flatMap(n -> Combinators.combine(
        Arbitraries.integers().between(0, 1_000).list().ofSize(n),
        Arbitraries.integers().between(0, 99).list().ofSize(n),
        Arbitraries.integers().between(0, 99).list().ofSize(3 * n),
        Arbitraries.integers().between(0, 99).list().ofSize(n))
        .as((owners, waves, uses, flags) -> {
          int outside = 2;
          List<ObjectMetadata> world = new ArrayList<>();
          for (int i = 0; i < n + outside; i++) {
            boolean inside = i < n;
            TestObjects.Builder b = TestObjects.obj("o" + i).namespace("a");
            if (inside && i > 0) {
              int r = owners.get(i);
              int first = r % i;
              if (r % 7 == 0 && i > 1) {
                b.ownedBy("o" + first, "o" + ((first + 1 + r / 7) % i)); // a shared dependent
              } else if (r % 11 == 0) {
                b.ownedBy("o" + first, "o" + (n + r % outside)); // a co-owner outside
              } else if (r % 5 == 0 && i < n - 1) {
                b.ownedBy("o" + first, "o" + (i + 1 + r / 5 % (n - i - 1))); // a later co-owner: often a ring
              } else {
                b.ownedBy("o" + first);
              }
            }
            int f = inside ? flags.get(i) : 50;
            if (f < 25) {
              b.syncFinalizer();
            } else if (f < 35) {
              b.finalizers(Worlds.HOLD);
            }
            if (inside && waves.get(i) < 50) {
              b.annotate(Names.DELETION_WAVE, Integer.toString(waves.get(i) % 4 - 1));
            }
            int u = uses.get(3 * (i % n));
            if (u < 35 || !inside && u < 60) {
              String named = "widget/o" + uses.get(3 * (i % n) + 1) % (n + outside);
              b.uses(u < 10 ? named + ", widget/o" + uses.get(3 * (i % n) + 2) % (n + outside) : named);
            }
            world.add(b.build());
          }
          return new Run(world, "o0");
        }));
  }

  /** A world in a line per object: its uid, owners, finalizers and syncgc's annotations. */
  private static String brief(List<ObjectMetadata> world) {
    StringBuilder out = new StringBuilder();
    for (ObjectMetadata o : world) {
      out.append("\n  ").append(o.uid()).append(" owners=").append(o.owners().stream().map(l -> l.uid()).toList())
          .append(" finalizers=").append(o.finalizers()).append(' ').append(o.annotations());
    }
    return out.toString();
  }

  private static ObjectMetadata withoutUses(ObjectMetadata o) {
    Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
    annotations.remove(Names.USES);
    return new ObjectMetadata(o.ref(), o.resourceVersion(), o.owners(), o.finalizers(), o.deletionTimestamp(),
        o.deletionGracePeriodSeconds(), annotations, o.labels());
  }

  /**
   * Whether {@code from} must go (or start going) before {@code to}: a dependent before its owner, every
   * owner here waiting for its dependents; an owner starts before its dependent goes (a shared dependent
   * waits for all its owners); a user before what it names. Through objects that go (being deleted, or
   * below an object being deleted): with {@code to} a user of {@code from}, a cycle.
   */
  private static boolean goesBefore(BruteForce bf, ObjectMetadata from, ObjectMetadata to, Map<String, ObjectMetadata> seen) {
    Set<String> going = new HashSet<>();
    for (ObjectMetadata o : seen.values()) {
      if (o.beingDeleted()) {
        going.add(o.uid());
        going.addAll(bf.reach(o.uid()));
      }
    }
    Deque<ObjectMetadata> todo = new ArrayDeque<>(List.of(from));
    Set<String> visited = new HashSet<>();
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      if (o.uid().equals(to.uid())) {
        return true;
      }
      if (!visited.add(o.uid()) || !going.contains(o.uid())) {
        continue;
      }
      for (ObjectMetadata next : seen.values()) {
        if (bf.edge(next.uid(), o.uid()) || bf.edge(o.uid(), next.uid())
            || namers(next, seen).stream().anyMatch(n -> n.uid().equals(o.uid()))) {
          todo.push(next); // o's owner; o's dependent (deleted only once o's deletion started); what o names
        }
      }
    }
    return false;
  }

  private static boolean below(BruteForce bf, String object, String ancestor, Map<String, ObjectMetadata> seen) {
    Deque<String> todo = new ArrayDeque<>(List.of(object));
    Set<String> visited = new HashSet<>();
    while (!todo.isEmpty()) {
      String o = todo.pop();
      for (ObjectMetadata owner : seen.values()) {
        if (bf.edge(owner.uid(), o)) {
          if (owner.uid().equals(ancestor)) {
            return true;
          }
          if (visited.add(owner.uid())) {
            todo.push(owner.uid());
          }
        }
      }
    }
    return false;
  }
}
