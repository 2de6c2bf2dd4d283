package dev.syncgc.core.deletion;

import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.deletion.inuse.UsersFirst;
import dev.syncgc.core.deletion.inuse.UsersRing;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.OnTimeout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * One plan of a synchronous deletion whose deadline is known (SPEC "Synchronous deletion", "Cycles
 * and timeouts", "Ordered teardown", "What a deadline does").
 */
final class SynchronousPlan {
  private final DependencyGraph graph;
  private final ObjectMetadata owner;
  private final Instant now;
  private final Failures lastFailure;
  private final ToIntFunction<ObjectMetadata> waveOf;
  private final Predicate<ObjectMetadata> cascades;
  private final Predicate<ObjectMetadata> kept;
  /** Each object's users, worked out once for this plan. */
  private final InUse.Lookup usage;
  private final List<Step> steps;
  private final boolean inUse;
  /** What each DELETE of this plan passes on. */
  private final Step.Cascade cascade;

  SynchronousPlan(DependencyGraph graph, ObjectMetadata owner, Instant now, Failures lastFailure,
      ToIntFunction<ObjectMetadata> waveOf, Predicate<ObjectMetadata> cascades, Predicate<ObjectMetadata> kept,
      List<Step> steps, boolean inUse, Step.Cascade cascade) {
    this.inUse = inUse;
    this.cascade = cascade;
    this.graph = graph;
    this.owner = owner;
    this.now = now;
    this.lastFailure = lastFailure;
    this.waveOf = waveOf;
    this.cascades = cascades;
    this.kept = kept;
    this.usage = new InUse.Lookup(graph, kept);
    this.steps = steps;
  }

  List<Step> plan(List<ObjectMetadata> dependents, Instant deadline, OnTimeout onTimeout, List<Blocker> unverified) {
    if (dependents.isEmpty() && unverified.isEmpty()) {
      steps.add(new Step.Release(Outcome.COMPLETED, List.of()));
      return steps;
    }
    Instant lookAgainBy = deadline;
    if (!now.isBefore(deadline)) {
      List<Blocker> remaining = withUnverified(unverified, Blockers.of(graph, dependents, lastFailure::why, usage::users));
      if (onTimeout == OnTimeout.RELEASE) {
        List<ObjectMetadata> leftBehind = unverified.isEmpty() ? deleteTheRest(dependents, deadline) : List.of();
        steps.add(new Step.Release(Outcome.TIMED_OUT, remaining, leftBehind));
        return steps;
      }
      if (owner.annotation(Names.TIMED_OUT) == null) {
        steps.add(new Step.TimedOut(remaining)); // kept: reported once, then as before
      }
      lookAgainBy = Instant.MAX;
    }
    if (!unverified.isEmpty()) {
      // a dependent the graph has not seen may exist: deleting what it can see could delete a
      // parent before its unseen child, so nothing moves until the view is verified
      steps.add(new Step.Wait(withUnverified(unverified, Blockers.of(graph, dependents, lastFailure::why, usage::users)),
          dependents.size(), lookAgainBy));
      return steps;
    }
    return act(dependents, lookAgainBy);
  }

  /**
   * At a deadline that releases the owner, SPEC has the remaining dependents still deleted
   * afterwards. The built-in collector would delete those left with no owner, but never a ring (its
   * members own each other), so syncgc sends the DELETEs itself before it lets the owner go: waves
   * no longer order them, and each cascades the same way (the deadline it inherits has passed
   * too). The deadline changes nothing about what may be deleted: only a dependent that nothing else
   * keeps ({@link Keepers.Keeper#NONE}) is. One kept by a solid owner loses its reference to the owner,
   * as before the deadline (the built-in collector would drop it once the owner is gone, but not while
   * another owner's kind does not resolve); one
   * whose co-owner is alive but doomed by another cascade ({@link Keepers.Keeper#DOOMED}): that
   * co-owner's own cascade, or the built-in collector, deletes it once the co-owner is gone. One
   * whose call failed at or after the deadline (tried again then: the failure still holds) is not
   * tried again here, so that nothing can hold the owner past its deadline: it is returned, left
   * behind for syncgc to delete once nothing refuses it any more (the built-in collector, where it
   * runs, does the same). One in use that carries syncgc's finalizer is deleted too: the DELETE only
   * marks it, and its users' hold keeps it until the last is gone; one in use without it is left to
   * the built-in collector (SPEC "In use"). One kept itself loses its reference and is never deleted nor
   * left behind (SPEC "Keep one dependent"); if removing the reference failed since the deadline, it is
   * skipped, as a refused DELETE is, so that it cannot hold the owner.
   *
   * @return the dependents left behind because their calls still fail
   */
  private List<ObjectMetadata> deleteTheRest(List<ObjectMetadata> dependents, Instant deadline) {
    Keepers keepers = new Keepers(graph, waveOf, cascades, kept);
    UsersRing rings = new UsersRing(usage, Set.of(), cascades); // one ring search for all of them, as in act()
    List<ObjectMetadata> leftBehind = new ArrayList<>();
    for (ObjectMetadata d : dependents) {
      if (d.uid().equals(owner.uid())) {
        continue;
      }
      if (keepers.kept(d)) {
        if (!lastFailure.since(d.uid(), deadline)) {
          steps.add(new Step.DropReference(d, owner.uid(), true));
        }
        continue;
      }
      if (lastFailure.since(d.uid(), deadline)) {
        if (!d.beingDeleted()) {
          leftBehind.add(d);
        }
        continue;
      }
      Keepers.Keeper keeper = keepers.otherKeeper(d, owner.uid());
      if (keeper == Keepers.Keeper.SOLID) {
        steps.add(new Step.DropReference(d, owner.uid())); // as before the deadline: the built-in collector
        continue; // cannot remove it when another owner's kind does not resolve
      }
      if (!d.beingDeleted() && keeper == Keepers.Keeper.NONE && (d.hasFinalizer(Names.FINALIZER)
          || !(inUse && InUse.of(usage, d, rings).holds()))) { // in use: never removed while a user is left
        steps.add(new Step.DeleteDependent(d, !d.hasFinalizer(Names.FINALIZER) && graph.hasDependents(d.uid()),
            usersSeen(d), cascade));
      }
    }
    return leftBehind;
  }

  /**
   * Each dependent is kept by another owner or kept itself (its reference to the owner is removed), or goes with
   * the owner; of those, the ones of the highest wave left are deleted now, the others wait.
   */
  private List<Step> act(List<ObjectMetadata> dependents, Instant lookAgainBy) {
    Keepers keepers = new Keepers(graph, waveOf, cascades, kept);
    List<ObjectMetadata> waitingFor = new ArrayList<>();
    List<ObjectMetadata> toDelete = new ArrayList<>();
    boolean acted = false;
    for (ObjectMetadata d : dependents) {
      Keepers.Keeper keeper = d.uid().equals(owner.uid()) ? Keepers.Keeper.NONE
          : keepers.otherKeeper(d, owner.uid());
      if (keeper == Keepers.Keeper.SOLID || keeper == Keepers.Keeper.KEPT) {
        steps.add(new Step.DropReference(d, owner.uid(), keeper == Keepers.Keeper.KEPT));
        acted = true;
        continue;
      }
      waitingFor.add(d);
      if (keeper == Keepers.Keeper.NONE && !d.beingDeleted()) {
        toDelete.add(d);
      }
    }
    // SPEC "In use": a dependent with users left waits; its users go first, whatever their waves
    UsersFirst order = inUse ? UsersFirst.of(usage, owner, waitingFor, waveOf, cascades) : UsersFirst.NONE;
    order.rings().forEach(path -> steps.add(new Step.RingOfUsers(path))); // named (DependencyCycle) as they go as units
    ToIntFunction<ObjectMetadata> waveIn = inUse ? order::wave : waveOf;
    int wave = currentWave(waitingFor, waveIn);
    for (ObjectMetadata d : toDelete) {
      if (waveIn.applyAsInt(d) == wave && !order.held(d)) {
        boolean finalizeFirst = !d.hasFinalizer(Names.FINALIZER) && graph.hasDependents(d.uid());
        steps.add(new Step.DeleteDependent(d, finalizeFirst, usersSeen(d), cascade));
        acted = true;
      }
    }
    if (!acted) {
      Optional<Step.ReleaseRing> ring = RingRelease.of(graph, owner,
          m -> inUse && InUse.of(usage, m, Set.of(), cascades).holds());
      if (ring.isPresent()) {
        steps.add(ring.get());
        return steps;
      }
    }
    boolean waves = waitingFor.stream().anyMatch(d -> waveIn.applyAsInt(d) != 0);
    waitingFor.sort(Comparator.comparingInt(waveIn).reversed()); // the wave being deleted named first
    steps.add(new Step.Wait(Blockers.of(graph, waitingFor, lastFailure::why, usage::users), waitingFor.size(), lookAgainBy,
        waves ? OptionalInt.of(wave) : OptionalInt.empty()));
    return steps;
  }

  /** The users of {@code d} this plan saw (null when usage is not looked at): a new one stops its DELETE. */
  private Set<String> usersSeen(ObjectMetadata d) {
    if (!inUse) {
      return null;
    }
    List<ObjectMetadata> users = usage.users(d);
    if (users.isEmpty()) {
      return Set.of();
    }
    Set<String> uids = new java.util.HashSet<>();
    users.forEach(u -> uids.add(u.uid()));
    return uids;
  }

  /**
   * The highest wave among the dependents waited for. The owner itself (owning itself) and members
   * of its own ring already being deleted do not count: they can only go with the owner, so they
   * must not hold back its other dependents.
   */
  private int currentWave(List<ObjectMetadata> waitingFor, ToIntFunction<ObjectMetadata> waveOf) {
    List<ObjectMetadata> others = waitingFor.stream().filter(d -> !d.uid().equals(owner.uid())).toList();
    if (others.stream().mapToInt(waveOf).distinct().count() > 1
        && others.stream().anyMatch(ObjectMetadata::beingDeleted)) {
      Ring ring = Ring.of(graph, owner);
      others = others.stream().filter(d -> !(d.beingDeleted() && ring.contains(d.uid()))).toList();
    }
    return others.stream().mapToInt(waveOf).max().orElse(0);
  }

  private static List<Blocker> withUnverified(List<Blocker> unverified, List<Blocker> blockers) {
    List<Blocker> all = new ArrayList<>(unverified);
    all.addAll(blockers);
    return all.size() <= DeletionPlanner.MAX_BLOCKERS_REPORTED ? all
        : all.subList(0, DeletionPlanner.MAX_BLOCKERS_REPORTED);
  }
}
