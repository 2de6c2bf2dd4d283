package dev.syncgc.core.deletion;

import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;
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
  private final boolean inUse;

  public DeletionPlanner(Duration baseTimeout, Duration perDependentTimeout) {
    this(baseTimeout, perDependentTimeout, true);
  }

  /** @param inUse whether used objects wait for their users (SPEC "In use"; on unless turned off) */
  public DeletionPlanner(Duration baseTimeout, Duration perDependentTimeout, boolean inUse) {
    this.baseTimeout = baseTimeout;
    this.perDependentTimeout = perDependentTimeout;
    this.inUse = inUse;
  }

  /** The default deadline allowance for a deletion with this many dependents, direct and indirect. */
  public Duration defaultTimeout(int dependentCount) {
    return baseTimeout.plus(perDependentTimeout.multipliedBy(dependentCount));
  }

  /**
   * @param settings the owner's settings in force
   * @param inForce any object's settings in force (its wave among its owner's dependents, whether its
   *     own deletion cascades); asked once per object a plan looks at, not once per question
   */
  public List<Step> plan(DependencyGraph graph, ObjectMetadata owner, SettingsInForce settings, Instant now,
      Failures lastFailure, List<Blocker> unverified, Function<ObjectMetadata, SettingsInForce> inForce) {
    Function<ObjectMetadata, SettingsInForce> once = oncePerObject(inForce);
    return plan(graph, owner, settings, now, lastFailure, unverified, o -> once.apply(o).wave(),
        o -> once.apply(o).cascades(), o -> once.apply(o).keep());
  }

  /**
   * @param settings the owner's settings in force
   * @param lastFailure why and when the last API call on an object (by uid) failed
   * @param unverified what could not be checked for dependents the graph has not seen (kinds that
   *     could not be listed); while any is left nothing is deleted and the owner is not let go,
   *     except at its deadline (with {@code Release})
   * @param waveOf a dependent's deletion wave
   * @param cascades whether an object's own deletion, once it is being deleted, deletes its dependents
   *     (its propagation in force is {@code Synchronous})
   * @param kept whether an object survives every cascade through it (SPEC "Keep one dependent")
   */
  private List<Step> plan(DependencyGraph graph, ObjectMetadata owner, SettingsInForce settings, Instant now,
      Failures lastFailure, List<Blocker> unverified, ToIntFunction<ObjectMetadata> waveOf,
      Predicate<ObjectMetadata> cascades, Predicate<ObjectMetadata> kept) {
    List<Step> steps = new ArrayList<>();
    if (inUse) {
      // SPEC "In use": while a user is left, nothing of the owner's own deletion starts
      InUse.Hold hold = InUse.of(new InUse.Lookup(graph, kept), owner, Set.of(), cascades);
      if (hold.holds()) {
        return List.of(new Step.WaitForUsers(hold.users().stream().map(ObjectMetadata::ref).toList()));
      }
      if (!hold.ring().isEmpty()) {
        steps.add(new Step.RingOfUsers(hold.ring())); // users that use each other go as a unit
      }
    }
    if (owner.hasFinalizer(Names.ORPHAN_FINALIZER)) {
      // kubectl delete --cascade=orphan, or syncgc's own hand-over: the built-in collector orphans
      steps.add(new Step.Release(Outcome.ORPHANED, List.of()));
      return steps;
    }
    Propagation propagation = settings.propagationOrBackground();
    if (propagation == Propagation.BACKGROUND) {
      // opted out before the deletion reached syncgc: the built-in collector takes over
      steps.add(new Step.Release(Outcome.HANDED_OVER, List.of()));
      return steps;
    }
    if (propagation == Propagation.ORPHAN) {
      // every dependent survives, of every kind and namespace, seen by syncgc or not
      steps.add(handToOrphaning(owner, now));
      return steps;
    }
    List<ObjectMetadata> dependents = graph.dependentsOf(owner.uid());
    Instant deadline = deadlineOf(owner);
    if (deadline == null) {
      int count = graph.transitiveDependentCount(owner.uid());
      deadline = now.plus(settings.timeout().orElseGet(() -> defaultTimeout(count)));
      steps.add(new Step.Start(deadline, count));
    }
    Step.Cascade cascade = new Step.Cascade(owner.uid(), deadline, settings.gracePeriodSeconds().orElse(null));
    return new SynchronousPlan(graph, owner, now, lastFailure, waveOf, cascades, kept, steps, inUse, cascade)
        .plan(dependents, deadline, settings.onTimeout(), unverified);
  }

  /**
   * While a graceful deletion is pending (a Pod terminating) the API server changes no finalizer: the
   * owner waits until its grace period has run out (its deletionTimestamp), its dependents untouched
   * (the built-in collector leaves them alone while the owner exists); then it is handed over with
   * grace period 0, as the kubelet does at that point.
   */
  private static Step handToOrphaning(ObjectMetadata owner, Instant now) {
    Long pending = owner.deletionGracePeriodSeconds();
    boolean graceful = pending != null && pending > 0;
    if (!graceful) {
      return new Step.HandToOrphaning(null);
    }
    Instant until = owner.deletionTimestamp();
    if (now.isBefore(until)) {
      return new Step.Wait(List.of(new Blocker(owner.ref(), "its grace period runs until " + until
          + "; its dependents are then handed to orphaning")), 0, until);
    }
    return new Step.HandToOrphaning(0L);
  }

  /**
   * {@code inForce}, asked once per object (by instance: another version of an object read later is
   * resolved anew), for one plan or one check.
   */
  static Function<ObjectMetadata, SettingsInForce> oncePerObject(Function<ObjectMetadata, SettingsInForce> inForce) {
    Map<ObjectMetadata, SettingsInForce> resolved = new IdentityHashMap<>();
    return o -> resolved.computeIfAbsent(o, inForce);
  }

  /**
   * Deadlines as parsed, by their text: an owner is planned again and again with the same annotation,
   * and {@link Instant#parse} is a measurable share of a plan. Emptied when full (at most 8,192 texts,
   * about 1 MiB). A table of 4,096 slots by hash had 1,000 owners under deletion at once collide in
   * about 120 pairs, each parsing again at every plan (1.4 % of the operator's CPU in a chain of waves).
   */
  private static final Map<String, Instant> PARSED_DEADLINES = new ConcurrentHashMap<>();
  private static final int MAX_PARSED_DEADLINES = 8_192;

  /** The deadline recorded on the owner when its deletion started, or null. */
  public static Instant deadlineOf(ObjectMetadata owner) {
    String value = owner.annotation(Names.DEADLINE);
    if (value == null) {
      return null;
    }
    Instant known = PARSED_DEADLINES.get(value);
    if (known != null) {
      return known;
    }
    try {
      Instant deadline = Instant.parse(value);
      if (PARSED_DEADLINES.size() >= MAX_PARSED_DEADLINES) {
        PARSED_DEADLINES.clear();
      }
      PARSED_DEADLINES.put(value, deadline);
      return deadline;
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
