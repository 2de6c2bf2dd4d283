package dev.syncgc.core.deletion.inuse;

import dev.syncgc.core.graph.ClosedPath;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Whether an object's users can only go after it (SPEC "In use": then they go as a unit, the cycle
 * named). Each object's deletion has two steps, <em>started</em> (syncgc deletes it, or lets its own
 * deletion proceed) and <em>gone</em>, and each waits for others:
 * <ul>
 *   <li>an object starts once its users are gone (the hold), and, deleted by a cascade, once every owner
 *       of it that goes has started (a shared dependent is deleted only under owners all being deleted;
 *       an owner marked as deleted but held in use has not started);
 *   <li>an object is gone after it started and, when its deletion waits for its dependents (a
 *       synchronous or foreground deletion, or one a cascade will finalize first), after those that go
 *       are gone (one that another owner keeps is let go of, not waited for).
 * </ul>
 * The hold on X is a deadlock when every user's "gone" waits, step by step, for X's "started": a ring of
 * use (Y uses X, X uses Y), use and ownership (a uses b, b uses c, a owns c), or a shared dependent (u
 * uses x, both own d). Only while every object on the way goes ({@link WillGo}: being deleted, in the cascade, or under
 * a cascading owner with no owner that stays): a user that stays keeps the object.
 */
public final class UsersRing {
  /**
   * One stage of one object's deletion (its start, or its end: gone), told apart by the object's reference (equal by uid: the graph may
   * hand out another instance of the same object); {@code object} is the version the search looked at.
   */
  private record Stage(ObjectRef ref, boolean gone, ObjectMetadata object) {
    Stage(ObjectMetadata object, boolean gone) {
      this(object.ref(), gone, object);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Stage s && s.ref.equals(ref) && s.gone == gone;
    }

    @Override
    public int hashCode() {
      return ref.hashCode() * 2 + (gone ? 1 : 0);
    }
  }

  private final DependencyGraph graph;
  private final InUse.Lookup lookup;
  private final WillGo willGo;
  /**
   * What each step waits for, worked out once: one search per used object asks about the same steps
   * (a plan searches from each of an owner's dependents, over the same graph, going and cascades).
   */
  private final Map<Stage, List<Stage>> edges = new HashMap<>();

  /** For one plan: searches from any number of used objects share what they learn of the graph. */
  public UsersRing(InUse.Lookup lookup, Set<ObjectRef> going, Predicate<ObjectMetadata> cascades) {
    this.graph = lookup.graph;
    this.lookup = lookup;
    this.willGo = new WillGo(graph, going, cascades, lookup.kept());
  }

  /**
   * A closed path from {@code used} through one of its users and back, when every user's removal waits
   * for {@code used}'s deletion to start; otherwise empty: a user that can go first goes first.
   */
  List<ObjectRef> of(ObjectMetadata used, List<ObjectMetadata> users) {
    Stage target = new Stage(used, false);
    List<Stage> targetWaitsFor = users.stream().map(u -> new Stage(u, true)).toList();
    Function<Stage, List<Stage>> waitsFor = x -> x.equals(target) ? targetWaitsFor : edges.getOrDefault(x, List.of());
    Deque<Stage> todo = new ArrayDeque<>(targetWaitsFor);
    Set<Stage> seen = new HashSet<>(todo);
    Map<Stage, List<Stage>> waitedOnBy = new HashMap<>(); // the edges found, reversed
    while (!todo.isEmpty()) { // whatever its size: no search limit that ends in holding for ever
      Stage step = todo.pop();
      if (!willGo.test(step.object())) {
        return List.of();
      }
      List<Stage> before = edges.computeIfAbsent(step, this::waitsFor);
      for (Stage b : before) {
        waitedOnBy.computeIfAbsent(b, k -> new ArrayList<>()).add(step);
        if (!b.equals(target) && seen.add(b)) {
          todo.push(b);
        }
      }
    }
    Set<Stage> reachTarget = reaching(target, waitedOnBy); // one walk back from the target for all users
    for (ObjectMetadata u : users) {
      if (!reachTarget.contains(new Stage(u, true))) {
        return List.of(); // this user waits for nothing of it: it goes first
      }
    }
    Set<Stage> inside = new HashSet<>(seen);
    inside.add(target);
    List<ObjectRef> path = new ArrayList<>();
    for (Stage s : ClosedPath.of(target, inside, waitsFor::apply)) {
      ObjectRef ref = s.object().ref();
      if (path.isEmpty() || !path.get(path.size() - 1).equals(ref)) {
        path.add(ref); // an object's two steps named once
      }
    }
    return path;
  }

  /** What must happen before this step. */
  private List<Stage> waitsFor(Stage step) {
    ObjectMetadata o = step.object();
    List<Stage> before = new ArrayList<>();
    boolean held = !o.beingDeleted() || o.hasFinalizer(Names.FINALIZER); // its deletion can wait for users
    if (step.gone()) {
      if (held) {
        before.add(new Stage(o, false));
      }
      if (willGo.waitsForDependents(o)) {
        for (ObjectMetadata d : graph.dependentsOf(o.ref())) {
          if (willGo.test(d)) { // one another owner keeps is let go of (its reference removed), not waited for
            before.add(new Stage(d, true));
          }
        }
      }
      return before;
    }
    if (held) {
      lookup.users(o).forEach(u -> before.add(new Stage(u, true))); // the hold
    }
    if (!o.beingDeleted()) {
      // a cascade deletes it only once its owners all started: marked as deleted is not enough, an owner
      // held in use starts nothing of its own deletion until its users are gone
      for (OwnerLink link : o.owners()) {
        ObjectMetadata owner = graph.validity(o, link) == LinkValidity.VALID ? graph.get(link) : null;
        if (owner != null && !owner.ref().equals(o.ref())) {
          before.add(new Stage(owner, false));
        }
      }
    }
    return before;
  }

  /** The steps that wait, directly or not, for {@code target}: a walk back along the reversed edges. */
  private static Set<Stage> reaching(Stage target, Map<Stage, List<Stage>> waitedOnBy) {
    Set<Stage> found = new HashSet<>();
    Deque<Stage> todo = new ArrayDeque<>(List.of(target));
    while (!todo.isEmpty()) {
      for (Stage waiting : waitedOnBy.getOrDefault(todo.pop(), List.of())) {
        if (found.add(waiting)) {
          todo.push(waiting);
        }
      }
    }
    return found;
  }
}
