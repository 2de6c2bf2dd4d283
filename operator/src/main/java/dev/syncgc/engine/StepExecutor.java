package dev.syncgc.engine;

import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Failures;
import dev.syncgc.core.deletion.SendCheck;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.Answer;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.reflector.Reflectors;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Supplier;

/**
 * Carries out the planner's steps for one owner as API calls (the calls on its dependents are
 * {@link DependentActions}', those on the owner itself at the end {@link OwnerRelease}'s) and says
 * when the owner is looked at again ({@link Next}); what users see of them is the
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
  private final OwnerRelease ownerRelease;

  /**
   * @param check the send-time check of every call, on the settings in force the planner is given
   * @param paused why this process may not write after a pause ({@link PauseWatch}), or null
   */
  StepExecutor(DependencyGraph graph, KubeApi api, DeletionReporter reporter, Reflectors reflectors,
      WorkQueue queue, Clock clock, Duration recheckInterval, ParallelCalls calls, ObjectStates states,
      SendCheck check, Supplier<String> paused, InUseHolds holds) {
    this.writes = new ObjectWrites(api);
    this.holds = holds;
    this.states = states;
    this.reporter = reporter;
    this.reflectors = reflectors;
    this.queue = queue;
    this.clock = clock;
    this.recheckInterval = recheckInterval;
    this.calls = calls;
    this.check = check;
    this.leading = () -> queue.isShutdown() ? "this replica no longer leads (its workers were stopped)" : paused.get();
    this.dependents = new DependentActions(graph, api, reporter, reflectors, states, check, clock);
    this.leftBehind = new LeftBehindSync(graph, api, reflectors, states, clock, leading);
    this.ownerRelease = new OwnerRelease(writes, reporter, reflectors, states, clock, leading);
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

  /** Runs the steps of one plan; what follows is for {@link Workers} to carry out. */
  Next run(ObjectMetadata owner, SettingsInForce settings, List<Step> steps) {
    Next next = act(owner, settings, steps);
    return next.retry() ? byTheDeadline(next, owner, settings, steps) : next;
  }

  /**
   * A failed call retries the owner with a backoff that doubles with each failure (up to minutes): a
   * refused DELETE must never hold the owner past its deadline (SPEC), so the owner is looked at again
   * by its deadline at the latest, and, past a {@code Release} deadline, within a second: the plan that
   * tried the remaining dependents once more is followed at once by the one that lets the owner go.
   */
  private Next byTheDeadline(Next next, ObjectMetadata owner, SettingsInForce settings, List<Step> steps) {
    Instant deadline = DeletionPlanner.deadlineOf(owner);
    for (Step step : steps) {
      if (step instanceof Step.Start start) {
        deadline = start.deadline();
      }
    }
    if (deadline == null) {
      return next;
    }
    Duration until = Duration.between(clock.instant(), deadline);
    if (!until.isNegative()) {
      return next.by(until);
    }
    if (settings.onTimeout() == OnTimeout.RELEASE
        && steps.stream().anyMatch(s -> s instanceof Step.DeleteDependent || s instanceof Step.DropReference)) {
      return next.by(Duration.ofSeconds(1)); // not when the release itself failed: backoff
    }
    return next;
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
        return Next.after(recheckInterval); // looked at again when a user changes, and by then
      } else if (step instanceof Step.RingOfUsers ring) {
        reporter.usersRing(owner, ring);
      } else if (step instanceof Step.Start start) {
        deadline = start.deadline();
        batches.deadline(deadline);
        Answer started = start(owner, start);
        if (started != Answer.DONE) {
          // gone before its deletion could even start: nothing to do; else without a recorded
          // deadline nothing else may start
          return started == Answer.GONE ? Next.DONE : Next.RETRY;
        }
      } else if (step instanceof Step.TimedOut timedOut) {
        if (ownerRelease.keptAfterTimeout(owner, timedOut).retry()) {
          return Next.RETRY; // reported once: only once the mark is on the owner
        }
      } else if (step instanceof Step.HandToOrphaning handOver) {
        return ownerRelease.handToOrphaning(owner, handOver);
      } else if (step instanceof Step.DropReference drop) {
        batches.add(() -> dependents.dropReference(drop, owner, cascading));
      } else if (step instanceof Step.DeleteDependent delete) {
        if (!dependents.deleteSent(delete.dependent().uid())) { // not seen going yet: no second DELETE
          batches.add(() -> dependents.delete(delete, owner, cascading));
        }
      } else {
        Next acted = batches.finish();
        if (batches.more()) {
          return acted.by(Duration.ZERO); // the rest after other owners had their turn
        }
        if (step instanceof Step.Release release) {
          // never let the owner go on a view that a failed call just proved stale
          if (acted.retry()) {
            return acted;
          }
          leftBehind.mark(owner, release.leftBehind());
          return ownerRelease.release(owner, release.outcome(), release.remaining());
        } else if (step instanceof Step.ReleaseRing ring) {
          return acted.retry() ? acted : ownerRelease.releaseRing(owner, ring);
        }
        return acted.and(waitFor(owner, (Step.Wait) step));
      }
    }
    Next acted = batches.finish();
    return batches.more() ? acted.by(Duration.ZERO) : acted;
  }

  private Answer start(ObjectMetadata owner, Step.Start s) {
    ApiResult r = writes.setAnnotationsOf(reflectors.kindOf(owner.ref()), owner, s.annotations(), leading);
    Answer answer = r.answer();
    if (answer == Answer.DONE) {
      reporter.started(owner, s);
    } else if (answer == Answer.REFUSED || answer == Answer.FAILED) {
      reporter.failed(owner.ref(), owner.uid(), "recording the deadline: " + r.message());
    }
    return answer;
  }

  /**
   * Looked at again by the next recheck, the next {@code WaitingForDependents} Event or the deadline,
   * whichever comes first; a kind that could not be listed as soon as its failure is no longer
   * remembered.
   */
  private Next waitFor(ObjectMetadata owner, Step.Wait s) {
    boolean unverified = s.blockers().stream().anyMatch(b -> b.ref() == null);
    Duration recheck = unverified && FreshnessBarrier.FAILURE_MEMORY.compareTo(recheckInterval) < 0
        ? FreshnessBarrier.FAILURE_MEMORY : recheckInterval;
    Next next = Next.after(recheck).by(Duration.between(clock.instant(), s.deadline()));
    Duration untilEvent = reporter.waiting(owner, s);
    return untilEvent == null ? next : next.by(untilEvent);
  }
}
