package dev.syncgc.engine;

import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.deletion.Outcome;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.Answer;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.reflector.Reflectors;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The calls on the owner itself at the end of its deletion: letting it go (its finalizer removed, a
 * ring's members with it), handing its dependents to orphaning, and marking a deadline it is kept
 * past. Each call is sent only while this replica leads ({@code leading}).
 */
final class OwnerRelease {
  private final ObjectWrites writes;
  private final DeletionReporter reporter;
  private final Reflectors reflectors;
  private final ObjectStates states;
  private final Clock clock;
  private final Supplier<String> leading;

  OwnerRelease(ObjectWrites writes, DeletionReporter reporter, Reflectors reflectors, ObjectStates states, Clock clock,
      Supplier<String> leading) {
    this.writes = writes;
    this.reporter = reporter;
    this.reflectors = reflectors;
    this.states = states;
    this.clock = clock;
    this.leading = leading;
  }

  /** The deadline passed and the owner is kept: marked on the owner, so reported and counted once. */
  Next keptAfterTimeout(ObjectMetadata owner, Step.TimedOut s) {
    ApiResult r = writes.setAnnotationsOf(reflectors.kindOf(owner.ref()), owner,
        Map.of(Names.TIMED_OUT, clock.instant().toString()), leading);
    Answer answer = r.answer();
    if (answer == Answer.DONE) {
      reporter.keptAfterTimeout(owner, s.remaining());
      return Next.DONE;
    }
    if (!answer.settled() && answer != Answer.STALE) {
      reporter.failed(owner.ref(), owner.uid(), "marking the timeout: " + r.message());
    }
    return Next.RETRY;
  }

  /**
   * DELETE the owner again with {@code propagationPolicy: Orphan}, once, at the version planned from (on
   * a view the hand-over made stale, its answer lost: 409): the API server adds the {@code orphan}
   * finalizer and the owner is let go at once (kube-controller-manager may remove that finalizer first).
   * The grace period is the step's (0 for an owner whose graceful deletion ran out).
   */
  Next handToOrphaning(ObjectMetadata owner, Step.HandToOrphaning s) {
    ObjectStates.State state = states.of(owner.uid());
    if (!state.handedOver) {
      ApiResult r = writes.delete(reflectors.kindOf(owner.ref()), owner.ref(), owner.resourceVersion(),
          s.gracePeriodSeconds(), "Orphan", leading);
      Answer answer = r.answer();
      if (answer == Answer.GONE) {
        return Next.DONE;
      }
      if (answer != Answer.DONE || !r.finalizers().contains(Names.ORPHAN_FINALIZER)) {
        if (answer != Answer.STALE) {
          reporter.failed(owner.ref(), owner.uid(), "handing the dependents to orphaning: "
              + (answer == Answer.DONE ? "the API server did not add the orphan finalizer" : r.message()));
        }
        return Next.RETRY;
      }
      state.handedOver = true; // once: kube-controller-manager may remove the orphan finalizer before the release
    }
    return release(owner, Outcome.ORPHANED, List.of());
  }

  Next release(ObjectMetadata owner, Outcome outcome, List<Blocker> remaining) {
    Answer removed = removeFinalizer(owner);
    if (removed == Answer.GONE) {
      return Next.DONE; // released already (a second look before the graph caught up)
    }
    if (removed != Answer.DONE) {
      return Next.RETRY;
    }
    reporter.released(owner, outcome, remaining);
    return Next.DONE;
  }

  /**
   * Members in the order the planner gives (those owned from outside the ring last, so that an outside
   * owner sees the whole ring gone before it goes itself); the first release that fails stops the
   * rest, else an entry member could go, and its owner after it, while inner members are left.
   */
  Next releaseRing(ObjectMetadata owner, Step.ReleaseRing s) {
    reporter.ringReleased(owner, s);
    for (ObjectMetadata member : s.members()) {
      if (member.hasFinalizer(Names.FINALIZER) && !removeFinalizer(member).settled()) {
        return Next.RETRY;
      }
    }
    return Next.DONE;
  }

  private Answer removeFinalizer(ObjectMetadata owner) {
    ApiResult r = writes.removeFinalizer(reflectors.kindOf(owner.ref()), owner.ref(), owner.finalizers(),
        Names.FINALIZER, leading);
    Answer answer = r.answer();
    if (answer == Answer.REFUSED || answer == Answer.FAILED) {
      reporter.failed(owner.ref(), owner.uid(), "removing the syncgc finalizer: " + r.message());
    }
    return answer;
  }
}
