package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * SPEC "In use", inside a cascade: a dependent with users left is not deleted yet, and its users go
 * first, whatever their waves or subtrees. A dependent whose subtree holds a user of another
 * dependent counts in that one's wave at least (higher waves go first), so the user is never held
 * back behind what it uses.
 */
final class UsersFirst {
  static final UsersFirst NONE = new UsersFirst(Map.of(), Map.of(), null, List.of());

  private final Map<String, List<ObjectMetadata>> held; // dependent uid -> its users
  private final Map<String, Integer> waves; // the wave each dependent counts in, when raised
  private final ToIntFunction<ObjectMetadata> waveOf;
  private final List<Step.RingOfUsers> rings;

  private UsersFirst(Map<String, List<ObjectMetadata>> held, Map<String, Integer> waves,
      ToIntFunction<ObjectMetadata> waveOf, List<Step.RingOfUsers> rings) {
    this.held = held;
    this.waves = waves;
    this.waveOf = waveOf;
    this.rings = rings;
  }

  /** For the dependents an owner waits for (the owner itself among them, if it owns itself). */
  static UsersFirst of(InUse.Lookup lookup, ObjectMetadata owner, List<ObjectMetadata> dependents,
      ToIntFunction<ObjectMetadata> waveOf, Predicate<ObjectMetadata> cascades) {
    DependencyGraph graph = lookup.graph();
    Map<String, List<ObjectMetadata>> held = new HashMap<>();
    Map<Set<String>, Step.RingOfUsers> rings = new LinkedHashMap<>(); // one each, whichever member found it
    Set<String> going = new HashSet<>();
    dependents.forEach(d -> going.add(d.uid()));
    for (ObjectMetadata d : dependents) {
      if (!d.uid().equals(owner.uid())) {
        InUse.Hold hold = InUse.of(lookup, d, going, cascades);
        if (hold.holds()) {
          held.put(d.uid(), hold.users());
        } else if (!hold.ring().isEmpty()) {
          Set<String> members = new HashSet<>();
          hold.ring().forEach(r -> members.add(r.uid()));
          rings.putIfAbsent(members, new Step.RingOfUsers(hold.ring()));
        }
      }
    }
    if (held.isEmpty()) {
      return new UsersFirst(Map.of(), Map.of(), waveOf, List.copyOf(rings.values()));
    }
    Map<String, Integer> waves = new HashMap<>();
    Set<String> uids = new HashSet<>();
    for (ObjectMetadata d : dependents) {
      waves.put(d.uid(), waveOf.applyAsInt(d));
      uids.add(d.uid());
    }
    // edges: the dependent a user is (or is below) must go before the dependent it uses
    List<String[]> before = new ArrayList<>();
    held.forEach((usedUid, users) -> {
      for (ObjectMetadata user : users) {
        for (String root : atOrAbove(graph, user, uids)) {
          if (!root.equals(usedUid)) {
            before.add(new String[] {root, usedUid});
          }
        }
      }
    });
    for (int round = 0; round <= before.size(); round++) { // raises settle within as many rounds as edges
      boolean changed = false;
      for (String[] edge : before) {
        int need = waves.get(edge[1]);
        if (waves.get(edge[0]) < need) {
          waves.put(edge[0], need);
          changed = true;
        }
      }
      if (!changed) {
        break;
      }
    }
    return new UsersFirst(held, waves, waveOf, List.copyOf(rings.values()));
  }

  /** Of {@code among}, the user itself and the objects above it (valid references only). */
  private static Set<String> atOrAbove(DependencyGraph graph, ObjectMetadata user, Set<String> among) {
    Set<String> found = new HashSet<>();
    Deque<ObjectMetadata> todo = new ArrayDeque<>(List.of(user));
    Set<String> seen = new HashSet<>(Set.of(user.uid()));
    while (!todo.isEmpty()) {
      ObjectMetadata o = todo.pop();
      if (among.contains(o.uid())) {
        found.add(o.uid());
      }
      for (OwnerLink link : o.owners()) {
        ObjectMetadata owner = graph.validity(o, link) == LinkValidity.VALID ? graph.get(link.uid()) : null;
        if (owner != null && seen.add(owner.uid())) {
          todo.push(owner);
        }
      }
    }
    return found;
  }

  /** The rings of use (with ownership) among the dependents, released as units: each to be named once. */
  List<Step.RingOfUsers> rings() {
    return rings;
  }

  /** Whether the dependent has users left: it waits, whatever its wave. */
  boolean held(ObjectMetadata dependent) {
    return held.containsKey(dependent.uid());
  }

  /** The wave the dependent counts in: its own, raised to that of what its subtree uses. */
  int wave(ObjectMetadata dependent) {
    Integer raised = waves.get(dependent.uid());
    return raised != null ? raised : waveOf.applyAsInt(dependent);
  }
}
