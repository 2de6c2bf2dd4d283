package dev.syncgc.core.deletion.inuse;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.usage.Use;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * The waves an owner's dependents count in when uses cross their subtrees (SPEC "In use": users go
 * first, whatever their waves or subtrees). Waves order an owner's dependents, uses order objects
 * anywhere below them; where the two disagree, the waves give way:
 * <ul>
 *   <li>a dependent whose subtree holds a user of something in another dependent's subtree counts in
 *       that one's wave at least (its subtree goes first, or with it: the hold orders the rest);
 *   <li>a dependent whose subtree something going outside the owner's subtree waits for (it uses an
 *       object outside, or shares a dependent with an owner outside) counts in the wave of every
 *       dependent whose subtree waits for something going outside (a user outside, or an owner
 *       outside of a shared dependent): otherwise the one could wait for its wave behind the other,
 *       the other for the outside, and the outside, through other owners' waves, for the one: a
 *       deadlock no single owner sees. What stays outside (no deletion above it, or an owner that stays) is no part of one.
 * </ul>
 * Both follow the holds inside the owner's subtree (the one that waits for another's users waits for
 * whatever those wait for). Worked out only while the graph holds some use and the dependents are in
 * more than one wave, over at most {@link #MAX_OBJECTS} objects below the owner; past that, waves are
 * left as they are.
 */
final class WavesByUse {
  static final int MAX_OBJECTS = 50_000;

  private final Map<ObjectRef, Integer> waves = new HashMap<>(); // dependent -> the wave it counts in
  private final Map<ObjectRef, Set<ObjectRef>> rootsOf = new HashMap<>(); // object below -> the dependents above it
  private final List<ObjectRef[]> before = new ArrayList<>(); // {a, b}: a's subtree holds a user of b's
  private final Set<ObjectRef> waitsOnOutside = new HashSet<>();
  private final Set<ObjectRef> waitedOnFromOutside = new HashSet<>();

  private WavesByUse() {}

  /**
   * The wave each dependent counts in, raised where uses cross the subtrees; empty (their own waves
   * stand) while the graph holds no use, when they are all in one wave, or past {@link #MAX_OBJECTS}
   * objects below the owner.
   */
  static Map<ObjectRef, Integer> of(InUse.Lookup lookup, ObjectMetadata owner, List<ObjectMetadata> dependents,
      ToIntFunction<ObjectMetadata> waveOf, Predicate<ObjectMetadata> cascades) {
    DependencyGraph graph = lookup.graph();
    if (!graph.anyUses()) {
      return Map.of();
    }
    WavesByUse w = new WavesByUse();
    for (ObjectMetadata d : dependents) {
      if (!d.ref().equals(owner.ref())) {
        w.waves.put(d.ref(), waveOf.applyAsInt(d));
      }
    }
    if (w.waves.values().stream().distinct().count() < 2) {
      return Map.of(); // raises only lift a wave to another's: with one wave among them nothing changes
    }
    if (!w.walk(graph, owner)) {
      return Map.of();
    }
    w.crossings(lookup, owner, cascades);
    w.settle();
    return w.waves;
  }

  /** Files every object below each dependent under the dependents it is below; false past the bound. */
  private boolean walk(DependencyGraph graph, ObjectMetadata owner) {
    for (ObjectRef root : waves.keySet()) {
      Deque<ObjectRef> todo = new ArrayDeque<>(List.of(root));
      Set<ObjectRef> seen = new HashSet<>(todo);
      while (!todo.isEmpty()) {
        ObjectRef ref = todo.pop();
        rootsOf.computeIfAbsent(ref, k -> new HashSet<>(2)).add(root);
        if (rootsOf.size() > MAX_OBJECTS) {
          return false;
        }
        for (ObjectMetadata d : graph.dependentsOf(ref)) {
          if (!d.ref().equals(owner.ref()) && seen.add(d.ref())) {
            todo.push(d.ref());
          }
        }
      }
    }
    return true;
  }

  /**
   * Each use that crosses (between two dependents' subtrees, or between one and the world outside),
   * and each dependent shared with an owner outside.
   */
  private void crossings(InUse.Lookup lookup, ObjectMetadata owner, Predicate<ObjectMetadata> cascades) {
    DependencyGraph graph = lookup.graph();
    WillGo mayGo = WillGo.mayGo(graph, cascades, lookup.kept()); // an object another owner keeps is no part of a wait across subtrees
    for (Map.Entry<ObjectRef, Set<ObjectRef>> e : rootsOf.entrySet()) {
      ObjectMetadata o = graph.get(e.getKey());
      if (o == null) {
        continue;
      }
      for (OwnerLink link : o.owners()) {
        ObjectMetadata other = link.refersTo(owner.ref()) ? null : graph.get(link);
        if (other != null && !rootsOf.containsKey(other.ref())
            && graph.validity(o, link) == LinkValidity.VALID && mayGo.test(other) && mayGo.test(o)) {
          // o is shared with an owner outside, and goes with both: one that orphans or that another
          // controller's finalizer holds keeps it, and no wait crosses
          waitsOnOutside.addAll(e.getValue()); // it starts once that owner started
          waitedOnFromOutside.addAll(e.getValue()); // that owner is gone once it is
        }
      }
      for (ObjectMetadata user : lookup.users(o)) {
        Set<ObjectRef> userRoots = rootsOf.get(user.ref());
        if (userRoots == null) {
          if (mayGo.test(user)) {
            waitsOnOutside.addAll(e.getValue());
          }
          continue;
        }
        for (ObjectRef a : userRoots) {
          for (ObjectRef b : e.getValue()) {
            if (!a.equals(b)) {
              before.add(new ObjectRef[] {a, b});
            }
          }
        }
      }
    }
    if (!waitsOnOutside.isEmpty()) { // otherwise what the outside waits on changes no wave: not looked for
      usesOfTheOutside(graph);
    }
  }

  /** The dependents whose subtrees use an object outside (whether it goes is not known here: it might). */
  private void usesOfTheOutside(DependencyGraph graph) {
    Set<List<String>> inside = new HashSet<>(); // the objects below, by what a use names
    for (ObjectRef ref : rootsOf.keySet()) {
      ObjectMetadata o = graph.get(ref);
      if (o != null) {
        inside.add(key(o.ref()));
      }
    }
    for (Map.Entry<ObjectRef, Set<ObjectRef>> e : rootsOf.entrySet()) {
      ObjectMetadata o = graph.get(e.getKey());
      if (o == null || o.annotation(Names.USES) == null) {
        continue;
      }
      for (Use use : graph.uses(o)) {
        if (use.valid() && !inside.contains(List.of(use.group(), use.kind(), Objects.toString(use.namespace()),
            use.name()))) {
          waitedOnFromOutside.addAll(e.getValue());
        }
      }
    }
  }

  private static List<String> key(ObjectRef ref) {
    return List.of(ref.group(), ref.kind(), Objects.toString(ref.namespace()), ref.name());
  }

  /**
   * Raises waves until every rule holds: along each hold, the user's side at least the used side's
   * wave; every side using the outside at least the wave of every side used from outside. What
   * crosses to the outside follows the holds (a side waiting for another's users waits for what
   * those wait for, and the outside waiting for one side waits for what that side waits for).
   */
  private void settle() {
    for (int round = 0; round <= before.size() + 1; round++) { // the flags spread within as many rounds as holds
      boolean changed = false;
      for (ObjectRef[] edge : before) {
        changed |= !waitsOnOutside.contains(edge[1]) && waitsOnOutside.contains(edge[0])
            && waitsOnOutside.add(edge[1]);
        changed |= !waitedOnFromOutside.contains(edge[0]) && waitedOnFromOutside.contains(edge[1]) && waitedOnFromOutside.add(edge[0]);
      }
      if (!changed) {
        break;
      }
    }
    int highestWaitingOnOutside = waitsOnOutside.stream().mapToInt(waves::get).max().orElse(Integer.MIN_VALUE);
    for (int round = 0; round <= before.size() + 1; round++) { // raises settle within as many rounds as holds
      boolean changed = false;
      for (ObjectRef q : waitedOnFromOutside) {
        changed |= raise(q, highestWaitingOnOutside);
      }
      for (ObjectRef[] edge : before) {
        changed |= raise(edge[0], waves.get(edge[1]));
      }
      if (!changed) {
        break;
      }
      highestWaitingOnOutside = waitsOnOutside.stream().mapToInt(waves::get).max().orElse(Integer.MIN_VALUE);
    }
  }

  private boolean raise(ObjectRef ref, int atLeast) {
    if (waves.get(ref) < atLeast) {
      waves.put(ref, atLeast);
      return true;
    }
    return false;
  }
}
