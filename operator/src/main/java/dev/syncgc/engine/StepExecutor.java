package dev.syncgc.engine;

import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Failures;
import dev.syncgc.core.deletion.Outcome;
import dev.syncgc.core.deletion.SendCheck;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.reflector.Reflectors;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Carries out the planner's steps for one owner as API calls; what users see of them is the
 * {@link DeletionReporter}'s job. A failed call never lets the owner go: the owner is planned again
 * from a fresh view.
 */
final class StepExecutor {
  private final ObjectWrites writes;
  private final DeletionReporter reporter;
  private final Reflectors reflectors;
  private final WorkQueue queue;
  private final Clock clock;
  private final Duration recheckInterval;
  private final ParallelCalls calls;
  private final DependentActions dependents;
  private final SendCheck check;
  /**
   * Checked before every write: a replica that stopped leading (its work queue shut down) or was paused
   * past the limit sends none.
   */
  private final Supplier<String> leading;
  private final InUseHolds holds;
  private final ObjectStates states;
  private final LeftBehindSync leftBehind;

  /**
   * @param inForce any object's settings in force, as the planner is given them
   * @param paused why this process may not write after a pause ({@link PauseWatch}), or null
   */
  StepExecutor(DependencyGraph graph, KubeApi api, DeletionReporter reporter, Reflectors reflectors,
      WorkQueue queue, Clock clock, Duration recheckInterval, ParallelCalls calls, ObjectStates states,
      Function<ObjectMetadata, SettingsInForce> inForce, Supplier<String> paused, InUseHolds holds) {
    this.writes = new ObjectWrites(api);
    this.holds = holds;
    this.states = states;
    this.reporter = reporter;
    this.reflectors = reflectors;
    this.queue = queue;
    this.clock = clock;
    this.recheckInterval = recheckInterval;
    this.calls = calls;
    this.check = new SendCheck(graph, inForce);
    this.leading = () -> queue.isShutdown() ? "this replica no longer leads (its workers were stopped)" : paused.get();
    this.dependents = new DependentActions(graph, api, reporter, reflectors, states, check, clock);
    this.leftBehind = new LeftBehindSync(graph, api, reflectors, states, clock, leading);
  }

  String lastFailure(String uid) {
    return dependents.lastFailure(uid);
  }

  /** Why and when the last call on each object failed, as the planner reads it. */
  Failures failures() {
    return dependents.failures();
  }

  /** An object a Release deadline left behind: deleted once its owners are gone ({@link LeftBehindSync}). */
  Next leftBehind(ObjectMetadata object) {
    return leftBehind.sync(object);
  }

  /** The graph saw the object being deleted: a DELETE sent to it is no longer pending. */
  void deletionSeen(String uid) {
    dependents.deletionSeen(uid);
  }

  Next run(ObjectMetadata owner, SettingsInForce settings, List<Step> steps) {
    Next next = act(owner, settings, steps);
    if (next == Next.RETRY) {
      byTheDeadline(owner, settings, steps);
    }
    return next;
  }

  /**
   * A failed call retries the owner with a backoff that doubles with each failure (up to minutes): a
   * refused DELETE must never hold the owner past its deadline (SPEC), so the owner is looked at again
   * by its deadline at the latest, and, past a {@code Release} deadline, within a second: the plan that
   * tried the remaining dependents once more is followed at once by the one that lets the owner go.
   */
  private void byTheDeadline(ObjectMetadata owner, SettingsInForce settings, List<Step> steps) {
    Instant deadline = DeletionPlanner.deadlineOf(owner);
    for (Step step : steps) {
      if (step instanceof Step.Start start) {
        deadline = start.deadline();
      }
    }
    if (deadline == null) {
      return;
    }
    Duration until = Duration.between(clock.instant(), deadline);
    if (!until.isNegative()) {
      queue.addAfter(owner.uid(), until);
    } else if (settings.onTimeout() == OnTimeout.RELEASE
        && steps.stream().anyMatch(s -> s instanceof Step.DeleteDependent || s instanceof Step.DropReference)) {
      queue.addAfter(owner.uid(), Duration.ofSeconds(1)); // not when the release itself failed: backoff
    }
  }

  private Next act(ObjectMetadata owner, SettingsInForce settings, List<Step> steps) {
    Instant deadline = DeletionPlanner.deadlineOf(owner); // null until a Start step records it
    PlanCalls batches = new PlanCalls(calls, clock, () -> leading.get() == null, deadline);
    // every call on a dependent is sent only while this replica leads and the owner's deletion still
    // cascades, as the graph has the owner when the call goes (SPEC: facts checked when it is sent)
    Supplier<String> cascading = () -> {
      String why = leading.get();
      return why != null ? why : check.ownerStopped(owner);
    };
    holds.endUnless(!steps.isEmpty() && steps.get(0) instanceof Step.WaitForUsers, owner, reporter::usersGone);
    for (Step step : steps) {
      if (step instanceof Step.WaitForUsers users) {
        reporter.waitingForUsers(owner, users, holds.hold(owner));
        queue.addAfter(owner.uid(), recheckInterval); // looked at again when a user changes, and by then
        return Next.DONE;
      } else if (step instanceof Step.RingOfUsers ring) {
        reporter.usersRing(owner, ring);
      } else if (step instanceof Step.Start start) {
        deadline = start.deadline();
        batches.deadline(deadline);
        ApiResult r = start(owner, start);
        if (r.gone()) {
          return Next.DONE; // the owner went before its deletion could even start: nothing to do
        }
        if (!r.ok()) {
          return Next.RETRY; // without a recorded deadline nothing else may start
        }
      } else if (step instanceof Step.TimedOut timedOut) {
        if (keptAfterTimeout(owner, timedOut) == Next.RETRY) {
          return Next.RETRY; // reported once: only once the mark is on the owner
        }
      } else if (step instanceof Step.HandToOrphaning) {
        return handToOrphaning(owner);
      } else if (step instanceof Step.DropReference drop) {
        batches.add(() -> dependents.dropReference(drop, owner, cascading));
      } else if (step instanceof Step.DeleteDependent delete) {
        if (!dependents.deleteSent(delete.dependent().uid())) { // not seen going yet: no second DELETE
          Instant ownerDeadline = deadline;
          batches.add(() -> dependents.delete(delete, owner, settings, ownerDeadline, cascading));
        }
      } else {
        Next acted = batches.finish();
        if (batches.more()) {
          queue.add(owner.uid()); // the rest after other owners had their turn
          return acted;
        }
        if (step instanceof Step.Release release) {
          // never let the owner go on a view that a failed call just proved stale
          if (acted == Next.RETRY) {
            return Next.RETRY;
          }
          leftBehind.mark(owner, release.leftBehind());
          return release(owner, release.outcome(), release.remaining());
        } else if (step instanceof Step.ReleaseRing ring) {
          return acted == Next.RETRY ? Next.RETRY : releaseRing(owner, ring);
        }
        waitFor(owner, (Step.Wait) step);
        return acted;
      }
    }
    Next acted = batches.finish();
    if (batches.more()) {
      queue.add(owner.uid());
    }
    return acted;
  }

  private ApiResult start(ObjectMetadata owner, Step.Start s) {
    ApiResult r = writes.setAnnotationsOf(reflectors.kindOf(owner.ref()), owner, Map.of(Names.DEADLINE,
        s.deadline().toString(), Names.DEPENDENTS_AT_START, Integer.toString(s.dependentCount())), leading);
    if (r.ok()) {
      reporter.started(owner, s);
    } else if (!r.gone() && !r.notSent()) {
      reporter.failed(owner.ref(), owner.uid(), "recording the deadline: " + r.message());
    }
    return r;
  }

  /** The deadline passed and the owner is kept: marked on the owner, so reported and counted once. */
  private Next keptAfterTimeout(ObjectMetadata owner, Step.TimedOut s) {
    ApiResult r = writes.setAnnotationsOf(reflectors.kindOf(owner.ref()), owner,
        Map.of(Names.TIMED_OUT, clock.instant().toString()), leading);
    if (r.ok()) {
      reporter.keptAfterTimeout(owner, s.remaining());
      return Next.DONE;
    }
    if (!r.gone() && !r.notSent()) {
      reporter.failed(owner.ref(), owner.uid(), "marking the timeout: " + r.message());
    }
    return Next.RETRY;
  }

  /**
   * DELETE the owner again with {@code propagationPolicy: Orphan}, once, at the version planned from (on
   * a view the hand-over made stale, its answer lost: 409): the API server adds the {@code orphan}
   * finalizer and the owner is let go at once (kube-controller-manager may remove that finalizer first).
   * While a graceful deletion is pending (a Pod terminating) the API server changes no finalizer: the
   * owner waits until its grace period has run out (its deletionTimestamp), its dependents untouched
   * (the built-in collector leaves them alone while the owner exists), then goes with grace period 0,
   * as the kubelet does at that point.
   */
  private Next handToOrphaning(ObjectMetadata owner) {
    Instant now = clock.instant();
    Long pending = owner.deletionGracePeriodSeconds();
    boolean graceful = pending != null && pending > 0;
    if (graceful && now.isBefore(owner.deletionTimestamp())) {
      waitFor(owner, new Step.Wait(List.of(new Blocker(owner.ref(), "its grace period runs until "
          + owner.deletionTimestamp() + "; its dependents are then handed to orphaning")), 0, owner.deletionTimestamp()));
      return Next.DONE;
    }
    ObjectStates.State state = states.of(owner.uid());
    if (!state.handedOver) {
      ApiResult r = writes.delete(reflectors.kindOf(owner.ref()), owner.ref(), owner.resourceVersion(),
          graceful ? 0L : null, "Orphan", leading);
      if (r.gone()) {
        return Next.DONE;
      }
      if (!r.ok() || !r.finalizers().contains(Names.ORPHAN_FINALIZER)) {
        if (!r.conflict() && !r.notSent()) {
          reporter.failed(owner.ref(), owner.uid(), "handing the dependents to orphaning: "
              + (r.ok() ? "the API server did not add the orphan finalizer" : r.message()));
        }
        return Next.RETRY;
      }
      state.handedOver = true; // once: kube-controller-manager may remove the orphan finalizer before the release
    }
    return release(owner, Outcome.ORPHANED, List.of());
  }

  private Next release(ObjectMetadata owner, Outcome outcome, List<Blocker> remaining) {
    ApiResult removed = removeFinalizer(owner);
    if (removed.gone()) {
      return Next.DONE; // released already (a second look before the graph caught up)
    }
    if (!removed.ok()) {
      return Next.RETRY;
    }
    reporter.released(owner, outcome, remaining);
    return Next.DONE;
  }

  private ApiResult removeFinalizer(ObjectMetadata owner) {
    ApiResult r = writes.removeFinalizer(reflectors.kindOf(owner.ref()), owner.ref(), owner.finalizers(),
        Names.FINALIZER, leading);
    if (!r.ok() && !r.gone() && !r.conflict() && !r.notSent()) {
      reporter.failed(owner.ref(), owner.uid(), "removing the syncgc finalizer: " + r.message());
    }
    return r;
  }

  /**
   * Members in the order the planner gives (those owned from outside the ring last, so that an outside
   * owner sees the whole ring gone before it goes itself); the first release that fails stops the
   * rest, else an entry member could go, and its owner after it, while inner members are left.
   */
  private Next releaseRing(ObjectMetadata owner, Step.ReleaseRing s) {
    reporter.ringReleased(owner, s);
    for (ObjectMetadata member : s.members()) {
      if (member.hasFinalizer(Names.FINALIZER)) {
        ApiResult r = removeFinalizer(member);
        if (!r.ok() && !r.gone()) {
          return Next.RETRY;
        }
      }
    }
    return Next.DONE;
  }

  private void waitFor(ObjectMetadata owner, Step.Wait s) {
    boolean unverified = s.blockers().stream().anyMatch(b -> b.ref() == null);
    // a kind that could not be listed is tried again as soon as its failure is no longer remembered
    Duration recheck = reporter.waiting(owner, s, unverified && FreshnessBarrier.FAILURE_MEMORY.compareTo(
        recheckInterval) < 0 ? FreshnessBarrier.FAILURE_MEMORY : recheckInterval);
    Duration untilDeadline = Duration.between(clock.instant(), s.deadline());
    queue.addAfter(owner.uid(), untilDeadline.compareTo(recheck) < 0 ? untilDeadline : recheck);
  }
}
