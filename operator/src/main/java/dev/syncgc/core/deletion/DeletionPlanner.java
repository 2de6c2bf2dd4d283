package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Decides, from the graph alone, what to do next for an owner that carries the syncgc finalizer and
 * is being deleted. It never talks to the API server; the I/O edge carries the steps out and asks
 * again when anything below the owner changes. A synchronous deletion is planned by
 * {@link SynchronousPlan}.
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

  /** The plan with {@code on-timeout: Release} and every dependent in wave 0. */
  public List<Step> plan(DependencyGraph graph, ObjectMetadata owner, Propagation propagation,
      Optional<Duration> timeout, Instant now, Function<String, String> lastFailure, List<Blocker> unverified) {
    return plan(graph, owner, propagation, timeout, OnTimeout.RELEASE, now, lastFailure, unverified, d -> 0);
  }

  /**
   * @param propagation the owner's effective propagation
   * @param timeout the owner's explicit timeout, if any
   * @param onTimeout what the owner's deadline does
   * @param lastFailure why the last API call on an object (by uid) failed, or null
   * @param unverified what could not be checked for dependents the graph has not seen (kinds that
   *     could not be listed); while any is left nothing is deleted and the owner is not let go,
   *     except at its deadline (with {@code Release})
   * @param waveOf a dependent's deletion wave
   */
  public List<Step> plan(DependencyGraph graph, ObjectMetadata owner, Propagation propagation,
      Optional<Duration> timeout, OnTimeout onTimeout, Instant now, Function<String, String> lastFailure,
      List<Blocker> unverified, ToIntFunction<ObjectMetadata> waveOf) {
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
      return planOrphan(owner, dependents, lastFailure, unverified);
    }
    List<Step> steps = new ArrayList<>();
    Instant deadline = deadlineOf(owner);
    if (deadline == null) {
      int count = graph.transitiveDependentCount(owner.uid());
      deadline = now.plus(timeout.orElseGet(() -> defaultTimeout(count)));
      steps.add(new Step.Start(deadline, count));
    }
    return new SynchronousPlan(graph, owner, now, lastFailure, waveOf, steps)
        .plan(dependents, deadline, onTimeout, unverified);
  }

  /**
   * Every reference to the owner is removed first; the owner goes only once a fresh view shows no
   * dependent naming it (else the built-in collector would delete one whose removal failed).
   */
  private static List<Step> planOrphan(ObjectMetadata owner, List<ObjectMetadata> dependents,
      Function<String, String> lastFailure, List<Blocker> unverified) {
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
}
