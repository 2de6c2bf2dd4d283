package dev.syncgc.core.deletion;

import dev.syncgc.core.cycle.Cycles;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.graph.OwnerState;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Decides, from the graph alone, what to do next for an owner that carries the syncgc finalizer and
 * is being deleted. It never talks to the API server; the I/O edge carries the steps out and asks
 * again when anything below the owner changes.
 */
public final class DeletionPlanner {
  public static final int MAX_BLOCKERS_REPORTED = 10;

  private final Duration baseTimeout;
  private final Duration perDependentTimeout;

  public DeletionPlanner(Duration baseTimeout, Duration perDependentTimeout) {
    this.baseTimeout = baseTimeout;
    this.perDependentTimeout = perDependentTimeout;
  }

  /** The default deadline allowance for a deletion with this many dependents, direct and indirect. */
  public Duration defaultTimeout(int dependentCount) {
    return baseTimeout.plus(perDependentTimeout.multipliedBy(dependentCount));
  }

  /**
   * @param propagation the owner's effective propagation
   * @param timeout the owner's explicit timeout, if any
   * @param lastFailure why the last API call on an object (by uid) failed, or null
   * @param unverified what could not be checked for dependents the graph has not seen (kinds that
   *     could not be listed); while any is left nothing is deleted and the owner is not let go,
   *     except at its deadline
   */
  public List<Step> plan(
      DependencyGraph graph,
      ObjectMetadata owner,
      Propagation propagation,
      Optional<Duration> timeout,
      Instant now,
      Function<String, String> lastFailure,
      List<Blocker> unverified) {
    if (owner.hasFinalizer(Names.ORPHAN_FINALIZER)) {
      // kubectl delete --cascade=orphan: the request wins, the built-in collector orphans
      return List.of(new Step.Release(Outcome.ORPHANED, List.of()));
    }
    List<ObjectMetadata> dependents = graph.dependentsOf(owner.uid());
    if (propagation == Propagation.BACKGROUND) {
      // opted out before the deletion reached syncgc: the built-in collector takes over
      return List.of(new Step.Release(Outcome.HANDED_OVER, List.of()));
    }
    if (propagation == Propagation.ORPHAN) {
      return planOrphan(graph, owner, dependents, lastFailure, unverified);
    }
    return planSynchronous(graph, owner, dependents, timeout, now, lastFailure, unverified);
  }

  /**
   * Every reference to the owner is removed first; the owner goes only once a fresh view shows no
   * dependent naming it (else the built-in collector would delete one whose removal failed).
   */
  private static List<Step> planOrphan(DependencyGraph graph, ObjectMetadata owner,
      List<ObjectMetadata> dependents, Function<String, String> lastFailure, List<Blocker> unverified) {
    if (dependents.isEmpty() && unverified.isEmpty()) {
      return List.of(new Step.Release(Outcome.ORPHANED, List.of()));
    }
    List<Step> steps = new ArrayList<>();
    for (ObjectMetadata d : dependents) {
      steps.add(new Step.DropReference(d, owner.uid()));
    }
    List<Blocker> blockers = new ArrayList<>(unverified);
    for (ObjectMetadata d : dependents) {
      if (blockers.size() == MAX_BLOCKERS_REPORTED) {
        break;
      }
      String failure = lastFailure.apply(d.uid());
      blockers.add(new Blocker(d.ref(), failure != null ? failure : "owner reference being removed"));
    }
    steps.add(new Step.Wait(blockers, dependents.size(), Instant.MAX));
    return steps;
  }

  private List<Step> planSynchronous(
      DependencyGraph graph,
      ObjectMetadata owner,
      List<ObjectMetadata> dependents,
      Optional<Duration> timeout,
      Instant now,
      Function<String, String> lastFailure,
      List<Blocker> unverified) {
    List<Step> steps = new ArrayList<>();
    Instant deadline = deadlineOf(owner);
    if (deadline == null) {
      int count = graph.transitiveDependentCount(owner.uid());
      deadline = now.plus(timeout.orElseGet(() -> defaultTimeout(count)));
      steps.add(new Step.Start(deadline, count));
    }
    if (dependents.isEmpty() && unverified.isEmpty()) {
      steps.add(new Step.Release(Outcome.COMPLETED, List.of()));
      return steps;
    }
    if (!now.isBefore(deadline)) {
      steps.add(new Step.Release(Outcome.TIMED_OUT, withUnverified(unverified,
          blockers(graph, dependents, lastFailure))));
      return steps;
    }
    if (!unverified.isEmpty()) {
      // a dependent the graph has not seen may exist: deleting what it can see could delete a
      // parent before its unseen child, so nothing moves until the view is verified
      steps.add(new Step.Wait(withUnverified(unverified, blockers(graph, dependents, lastFailure)),
          dependents.size(), deadline));
      return steps;
    }
    boolean acted = false;
    List<ObjectMetadata> waitingFor = new ArrayList<>();
    for (ObjectMetadata d : dependents) {
      if (!d.uid().equals(owner.uid())) {
        Keeper keeper = otherKeeper(graph, d, owner.uid());
        if (keeper == Keeper.SOLID) {
          steps.add(new Step.DropReference(d, owner.uid()));
          acted = true;
          continue;
        }
        if (keeper == Keeper.DOOMED) {
          // kept only by owners this deletion is about to remove: neither drop nor delete yet
          waitingFor.add(d);
          continue;
        }
      }
      waitingFor.add(d);
      if (!d.beingDeleted()) {
        boolean finalizeFirst = !d.hasFinalizer(Names.FINALIZER) && graph.hasDependents(d.uid());
        steps.add(new Step.DeleteDependent(d, finalizeFirst));
        acted = true;
      }
    }
    if (!acted) {
      Optional<Step.ReleaseCycle> cycle = releasableCycle(graph, owner);
      if (cycle.isPresent()) {
        steps.add(cycle.get());
        return steps;
      }
    }
    steps.add(new Step.Wait(blockers(graph, waitingFor, lastFailure), waitingFor.size(), deadline));
    return steps;
  }

  /** The deadline recorded on the owner when its deletion started, or null. */
  public static Instant deadlineOf(ObjectMetadata owner) {
    String value = owner.annotation(Names.DEADLINE);
    if (value == null) {
      return null;
    }
    try {
      return Instant.parse(value);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private enum Keeper { NONE, SOLID, DOOMED }

  /**
   * Whether another owner keeps the dependent. An owner of a kind the API server does not serve
   * cannot be checked, so, as the built-in collector does, it is not presumed gone. A solid owner
   * that is itself about to go in a synchronous cascade (a diamond) is "doomed": the dependent is
   * then neither released from it nor deleted, until that owner's deletion has begun.
   */
  private static Keeper otherKeeper(DependencyGraph graph, ObjectMetadata d, String ownerUid) {
    Keeper result = Keeper.NONE;
    for (OwnerLink link : d.owners()) {
      if (link.uid().equals(ownerUid)) {
        continue;
      }
      LinkValidity validity = graph.validity(d, link);
      if (validity == LinkValidity.UNKNOWN_KIND) {
        return Keeper.SOLID;
      }
      if (validity == LinkValidity.VALID && graph.ownerState(link).solid()) {
        ObjectMetadata other = graph.get(link.uid());
        if (other == null || !doomed(graph, other)) {
          return Keeper.SOLID;
        }
        result = Keeper.DOOMED;
      }
    }
    return result;
  }

  /**
   * An object not yet being deleted, with no solid owner of its own, that a synchronous cascade
   * above it will delete.
   */
  private static boolean doomed(DependencyGraph graph, ObjectMetadata object) {
    boolean underCascade = false;
    for (OwnerLink link : object.owners()) {
      if (graph.validity(object, link) != LinkValidity.VALID) {
        if (graph.validity(object, link) == LinkValidity.UNKNOWN_KIND) {
          return false;
        }
        continue;
      }
      OwnerState state = graph.ownerState(link);
      if (state.solid()) {
        return false;
      }
      ObjectMetadata owner = graph.get(link.uid());
      if (state == OwnerState.DELETING && owner != null && owner.hasFinalizer(Names.FINALIZER)
          && !Propagation.ORPHAN.value().equals(owner.annotation(Names.PROPAGATION))) {
        underCascade = true;
      }
    }
    return underCascade;
  }

  /**
   * A cycle through the owner whose members are all being deleted and wait for nothing outside it:
   * it can only end by being released as a unit.
   */
  private static Optional<Step.ReleaseCycle> releasableCycle(DependencyGraph graph, ObjectMetadata owner) {
    Map<String, ObjectMetadata> seen = new HashMap<>();
    Function<String, List<String>> successors = uid -> {
      List<String> next = new ArrayList<>();
      for (ObjectMetadata d : graph.dependentsOf(uid)) {
        seen.put(d.uid(), d);
        next.add(d.uid());
      }
      return next;
    };
    seen.put(owner.uid(), owner);
    List<String> component = Cycles.componentOf(owner.uid(), successors);
    if (!Cycles.isCycle(component, successors)) {
      return Optional.empty();
    }
    Set<String> inside = new HashSet<>(component);
    List<ObjectMetadata> members = new ArrayList<>();
    for (String uid : component) {
      ObjectMetadata member = seen.get(uid);
      if (member == null || !waitsForDependents(member)) {
        return Optional.empty(); // a member that will go by itself breaks no deadlock
      }
      for (String next : successors.apply(uid)) {
        if (!inside.contains(next)) {
          return Optional.empty();
        }
      }
      members.add(member);
    }
    List<ObjectRef> path = new ArrayList<>();
    for (String uid : Cycles.pathThrough(owner.uid(), component, successors)) {
      path.add(seen.get(uid).ref());
    }
    return Optional.of(new Step.ReleaseCycle(members, path));
  }

  /** Being deleted and held until its dependents are gone: by syncgc or by foreground deletion. */
  private static boolean waitsForDependents(ObjectMetadata object) {
    return object.beingDeleted()
        && (object.hasFinalizer(Names.FINALIZER) || object.hasFinalizer(Names.FOREGROUND_FINALIZER));
  }

  private static List<Blocker> withUnverified(List<Blocker> unverified, List<Blocker> blockers) {
    List<Blocker> all = new ArrayList<>(unverified);
    all.addAll(blockers);
    return all.size() <= MAX_BLOCKERS_REPORTED ? all : all.subList(0, MAX_BLOCKERS_REPORTED);
  }

  private static List<Blocker> blockers(
      DependencyGraph graph, List<ObjectMetadata> dependents, Function<String, String> lastFailure) {
    List<Blocker> result = new ArrayList<>();
    for (ObjectMetadata d : dependents) {
      if (result.size() == MAX_BLOCKERS_REPORTED) {
        break;
      }
      result.add(new Blocker(d.ref(), why(graph, d, lastFailure.apply(d.uid()))));
    }
    return result;
  }

  /** Why a dependent is still in the store, in words for an Event. */
  static String why(DependencyGraph graph, ObjectMetadata d, String failure) {
    List<String> reasons = new ArrayList<>();
    if (failure != null) {
      reasons.add(failure);
    }
    if (!d.beingDeleted()) {
      reasons.add(failure == null ? "deletion requested" : "not deleted");
      return String.join("; ", reasons);
    }
    List<String> others = new ArrayList<>(d.finalizers());
    others.remove(Names.FINALIZER);
    if (!others.isEmpty()) {
      reasons.add("held by finalizers " + others);
    }
    if (d.deletionGracePeriodSeconds() != null && d.deletionGracePeriodSeconds() > 0) {
      reasons.add("graceful termination pending (grace period " + d.deletionGracePeriodSeconds() + "s)");
    }
    if (d.hasFinalizer(Names.FINALIZER)) {
      int below = graph.dependentsOf(d.uid()).size();
      reasons.add("waiting for " + below + " dependent" + (below == 1 ? "" : "s") + " of its own");
    }
    if (reasons.isEmpty()) {
      reasons.add("being deleted");
    }
    return String.join("; ", reasons);
  }
}
