package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.SoakObject.Kind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Usage edges beyond one synchronous cascade ({@link Soak.Uses#WIDE}), drawn from a Random of their
 * own once the rest of the round is drawn (SPEC "In use"):
 *
 * <ul>
 *   <li>across rings: in a synchronous cascade that deletes a ring, an object outside the ring uses a
 *       member, and a member uses an object outside it;
 *   <li>users outside the cascade: a new object that nothing owns uses 1 to 3 objects of a
 *       synchronous cascade (so they wait for it), and the soak deletes it 1 to 4 s after the action; or,
 *       in one scenario of four, it uses the root and is never deleted in the round (the root is held,
 *       nothing of its deletion starts);
 *   <li>an Orphan owner in use: a user outside uses the root (held until the soak deletes the user
 *       1 to 4 s after the action, then handed to the API server's orphaning, even when its annotation
 *       or policy turned Synchronous meanwhile) and maybe a dependent below it;
 *   <li>a namespace deletion: edges between the namespace's objects and a user outside the root's
 *       tree that uses the root (held by syncgc's finalizer until the namespace controller deleted it).
 * </ul>
 *
 * Only where the model judges them: no short deadline, no waves beside an outside user (an outside
 * user changes the waves' order, SPEC "In use"), no user of an object a cascade of another scenario
 * deletes.
 */
final class WideUses {
  /** The soak deletes a late user this long after the action at least, plus up to {@link #LATE_SPREAD_MILLIS}. */
  static final long LATE_MILLIS = 1000;
  static final int LATE_SPREAD_MILLIS = 3000;

  private final Random draws;
  private final Oracle oracle;

  WideUses(Random draws, Oracle oracle) {
    this.draws = draws;
    this.oracle = oracle;
  }

  void add(Scenario s) {
    Map<SoakObject, List<SoakObject>> added = new LinkedHashMap<>();
    if (s.mode() == Scenario.Mode.SYNC && s.synchronousRoot() && !s.timesOut()) {
      synchronous(s, added);
    } else if (s.mode() == Scenario.Mode.ORPHAN && s.orphanInForce()) {
      SoakObject user = outside(s, "user-late", Kind.WIDGET);
      use(user, s.root, added);
      List<SoakObject> below = s.objects.stream().filter(o -> o.owners.contains(s.root)).toList();
      if (!below.isEmpty() && draws.nextBoolean()) {
        use(user, below.get(draws.nextInt(below.size())), added);
      }
      s.outsideUsers.put(user, late());
    } else if (s.mode() == Scenario.Mode.NAMESPACE && s.optedIn()) {
      List<SoakObject> in = List.copyOf(s.objects);
      for (int e = draws.nextInt(5); e > 0; e--) {
        use(in.get(draws.nextInt(in.size())), in.get(draws.nextInt(in.size())), added);
      }
      use(outside(s, "user-ns", draws.nextBoolean() ? Kind.CONFIGMAP : Kind.WIDGET), s.root, added);
    }
    write(added);
  }

  private void synchronous(Scenario s, Map<SoakObject, List<SoakObject>> added) {
    Set<SoakObject> deleted = oracle.synchronous(s.root);
    List<SoakObject> cascade = s.objects.stream().filter(deleted::contains).filter(o -> o != s.raced).toList();
    List<SoakObject> ring = cascade.stream().filter(this::onRing).toList();
    List<SoakObject> off = cascade.stream().filter(o -> !onRing(o)).toList();
    if (!ring.isEmpty() && !off.isEmpty() && draws.nextBoolean()) {
      use(off.get(draws.nextInt(off.size())), ring.get(draws.nextInt(ring.size())), added);
      use(ring.get(draws.nextInt(ring.size())), off.get(draws.nextInt(off.size())), added);
    }
    boolean waves = s.objects.stream().anyMatch(o -> o.wave != null);
    int outside = draws.nextInt(4);
    Kind kind = s.namespace == null ? Kind.CLUSTER_WIDGET : Kind.WIDGET;
    if (outside == 0 && s.action == Scenario.Action.DELETE) {
      SoakObject user = outside(s, "user-kept", kind); // held: nothing of the root's deletion starts
      use(user, s.root, added);
      s.outsideUsers.put(user, -1L);
    } else if (!waves) {
      SoakObject user = outside(s, "user-late", kind);
      for (int e = 1 + draws.nextInt(3); e > 0; e--) {
        use(user, cascade.get(draws.nextInt(cascade.size())), added);
      }
      s.outsideUsers.put(user, late());
    }
  }

  /** On a ring of owners: an owner of it is below it. */
  private boolean onRing(SoakObject o) {
    return o.owners.stream().anyMatch(p -> oracle.reachable(o).contains(p));
  }

  private long late() {
    return LATE_MILLIS + draws.nextInt(LATE_SPREAD_MILLIS);
  }

  /** A new object of the scenario that nothing owns. */
  private static SoakObject outside(Scenario s, String name, Kind kind) {
    return Generator.add(s, kind, name);
  }

  private static void use(SoakObject user, SoakObject used, Map<SoakObject, List<SoakObject>> added) {
    int before = user.uses.size();
    Generator.use(user, used);
    if (user.uses.size() > before) {
      added.computeIfAbsent(user, k -> new ArrayList<>()).add(used);
    }
  }

  /** Appends the new entries to each user's annotation, in any of kubectl's forms. */
  private void write(Map<SoakObject, List<SoakObject>> added) {
    added.forEach((user, used) -> {
      List<String> names = new ArrayList<>();
      String old = user.annotations.get(Generator.USES);
      if (old != null) {
        names.add(old);
      }
      used.forEach(u -> names.add(Generator.kubectlName(u, draws)));
      user.annotations.put(Generator.USES, String.join(draws.nextBoolean() ? ", " : ",", names));
      for (SoakObject u : used) {
        if (user.kind.namespaced && !u.kind.namespaced) {
          u.annotations.put(Generator.USERS_FROM, "*");
        }
      }
    });
  }
}
