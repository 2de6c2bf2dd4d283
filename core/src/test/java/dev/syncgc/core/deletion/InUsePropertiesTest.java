package dev.syncgc.core.deletion;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
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
