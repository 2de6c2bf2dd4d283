package dev.syncgc.core.deletion.inuse;

import dev.syncgc.core.graph.DeletingOwner;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
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

/**
 * Whether an object will go ({@link UsersRing}), or may go ({@link #mayGo}, for {@link WavesByUse}): it is
 * being deleted, or in the cascade under way, or
 * a cascade above it deletes it: every owner of it goes and waits for it (an owner that stays keeps
 * it), and one of them is on its way down from a deletion. The last part is what a ring of owners
 * needs: a ring under an owner that goes, kept alive by nothing else, goes with it (the ring rule);
 * a ring owned by nothing outside it stays, as does everything it owns.
 *
 * <p>Worked out over the object's ancestors as the built-in collector's own reading would: what stays
 * (no owner, kept itself, an owner not seen or not valid, an owner that stays or that lets go of its dependents),
 * spread down, then what no deletion reaches stays too, until nothing changes. Each answer is kept for
 * the plan.
 */
final class WillGo {
  private final DependencyGraph graph;
  private final Set<ObjectRef> going;
  private final Predicate<ObjectMetadata> cascades;
  private final Predicate<ObjectMetadata> kept;
  private final Map<ObjectRef, Boolean> known = new HashMap<>();

  /**
   * @param going objects a cascade under way deletes, counted as being deleted already
   * @param cascades whether an object being deleted deletes its dependents before it goes
   * @param kept whether an object is kept itself (SPEC "Keep one dependent"): not being deleted, it stays
   */
  WillGo(DependencyGraph graph, Set<ObjectRef> going, Predicate<ObjectMetadata> cascades, Predicate<ObjectMetadata> kept) {
    this.graph = graph;
    this.going = going;
    this.cascades = cascades;
    this.kept = kept;
  }

  /**
   * Whether an object may go: marked as deleted, or every owner of it may and deletes its dependents
   * when it goes (foreground deletion, or syncgc's cascade: {@link DeletingOwner#deletesDependents}); an owner
   * that stays, orphans, or is held by another controller's finalizer keeps it, as for the ring rule.
   * {@link UsersRing} asks the stricter question.
   */
  static WillGo mayGo(DependencyGraph graph, Predicate<ObjectMetadata> cascades, Predicate<ObjectMetadata> kept) {
    return new WillGo(graph, Set.of(), o -> DeletingOwner.deletesDependents(o, cascades), kept);
  }

  boolean test(ObjectMetadata o) {
    if (deleted(o)) {
      return true;
    }
    Boolean answer = known.get(o.ref());
    if (answer == null) {
      answer = decide(o);
    }
    return answer;
  }

  /** A deletion under way waits for its dependents; one still to come does too (a cascade finalizes it first). */
  boolean waitsForDependents(ObjectMetadata o) {
    return !o.beingDeleted() || cascades.test(o);
  }

  private boolean deleted(ObjectMetadata o) {
    return o.beingDeleted() || going.contains(o.ref());
  }

  private boolean decide(ObjectMetadata o) {
    Map<ObjectRef, List<ObjectRef>> owners = new LinkedHashMap<>(); // o and its ancestors still to decide
    Set<ObjectRef> stays = new HashSet<>();
    Set<ObjectRef> reached = new HashSet<>(); // right under an owner that goes and waits for it
    Deque<ObjectMetadata> todo = new ArrayDeque<>(List.of(o));
    owners.put(o.ref(), new ArrayList<>());
    while (!todo.isEmpty()) {
      if (owners.size() > InUse.MAX_RING_SEARCH) {
        known.put(o.ref(), false); // too far to tell: it stays (safe: a user that stays keeps)
        return false;
      }
      ObjectMetadata x = todo.pop();
      if (x.owners().isEmpty() || kept.test(x)) {
        stays.add(x.ref()); // no owner, or kept itself: no cascade deletes it
      }
      for (OwnerLink link : x.owners()) {
        ObjectMetadata owner = graph.validity(x, link) == LinkValidity.VALID ? graph.get(link) : null;
        Boolean ownerGoes = owner == null ? Boolean.FALSE
            : deleted(owner) ? Boolean.valueOf(waitsForDependents(owner)) : known.get(owner.ref());
        if (ownerGoes != null) {
          (ownerGoes ? reached : stays).add(x.ref());
          continue;
        }
        owners.get(x.ref()).add(owner.ref());
        if (!owners.containsKey(owner.ref())) {
          owners.put(owner.ref(), new ArrayList<>());
          todo.push(owner);
        }
      }
    }
    boolean changed = true;
    while (changed) { // what stays keeps what it owns; what no deletion reaches stays (a ring on its own)
      changed = spread(owners, stays, stays);
      reached.removeAll(stays);
      spread(owners, stays, reached);
      for (ObjectRef ref : owners.keySet()) {
        if (!reached.contains(ref)) {
          changed |= stays.add(ref);
        }
      }
    }
    owners.keySet().forEach(ref -> known.put(ref, !stays.contains(ref)));
    return !stays.contains(o.ref());
  }

  /**
   * Adds to {@code into} every object, not in {@code except}, with an owner in {@code into}, until
   * nothing changes; whether anything was added.
   */
  private static boolean spread(Map<ObjectRef, List<ObjectRef>> owners, Set<ObjectRef> except, Set<ObjectRef> into) {
    boolean added = false;
    for (boolean changed = true; changed; ) {
      changed = false;
      for (Map.Entry<ObjectRef, List<ObjectRef>> e : owners.entrySet()) {
        if (!into.contains(e.getKey()) && !except.contains(e.getKey())
            && e.getValue().stream().anyMatch(into::contains)) {
          into.add(e.getKey());
          changed = true;
          added = true;
        }
      }
    }
    return added;
  }
}
