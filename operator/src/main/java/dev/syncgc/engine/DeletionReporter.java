package dev.syncgc.engine;

import dev.syncgc.core.deletion.Blocker;
import dev.syncgc.core.deletion.Outcome;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.metrics.SyncgcMetrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What users see of a deletion: the Events on the owner, the metrics and one log line per
 * decision. Only the deletion a user asked for (the root, not an owner syncgc put under deletion
 * itself) is counted and announced, so started and finished deletions add up.
 */
final class DeletionReporter {
  private static final Logger log = LoggerFactory.getLogger(DeletionReporter.class);
  static final Duration FIRST_WAITING_EVENT_AFTER = Duration.ofSeconds(3);

  private final EventRecorder events;
  private final SyncgcMetrics metrics;
  private final Clock clock;
  private final Duration waitingEventInterval;
  private final Supplier<List<String>> unlistedKinds;
  private final ObjectStates states;
  /**
   * The dependents kept (SPEC "Keep one dependent") below each root of a cascade so far, by its uid, for
   * SynchronousDeletionCompleted; counted by this replica only, dropped when the root is released.
   */
  private final Map<String, AtomicInteger> keptByRoot = new ConcurrentHashMap<>();
  private static final int MAX_ROOTS_COUNTED = 100_000;

  /**
   * @param unlistedKinds what syncgc cannot list or watch (refused kinds, group-versions whose discovery
   *     failed), named while a deletion waits and when it completes
   */
  DeletionReporter(EventRecorder events, SyncgcMetrics metrics, Clock clock, Duration waitingEventInterval,
      Supplier<List<String>> unlistedKinds, ObjectStates states) {
    this.states = states;
    this.events = events;
    this.metrics = metrics;
    this.clock = clock;
    this.waitingEventInterval = waitingEventInterval;
    this.unlistedKinds = unlistedKinds;
  }

  /**
   * What syncgc cannot check, named where it says what it waits for and what it released: kinds whose
   * list and watch are refused, and group-versions whose discovery failed (their kinds are not tracked).
   */
  static List<String> notChecked(List<String> refusedKinds, List<String> unreadGroupVersions) {
    List<String> out = new java.util.ArrayList<>(refusedKinds);
    unreadGroupVersions.forEach(gv -> out.add(gv + " (discovery failed)"));
    return out;
  }

  private static boolean root(ObjectMetadata owner) {
    return owner.annotation(Names.CASCADED_FROM) == null;
  }

  void started(ObjectMetadata owner, Step.Start s) {
    log.info("synchronous deletion started object={} uid={} dependents={} deadline={}", owner.ref(),
        owner.uid(), s.dependentCount(), s.deadline());
    if (root(owner)) {
      metrics.started();
      events.normal(owner.ref(), EventReason.SynchronousDeletionStarted, "Deleting " + s.dependentCount()
          + " dependent" + (s.dependentCount() == 1 ? "" : "s") + " before this object; deadline "
          + s.deadline());
    }
  }

  /**
   * @param keptUnder the uid of the root of the cascade when the dependent is kept itself (SPEC "Keep one
   *     dependent"): counted there; null when another owner keeps it
   */
  void referenceDropped(ObjectMetadata dependent, ObjectMetadata owner, String keptUnder) {
    if (keptUnder != null) {
      if (keptByRoot.size() >= MAX_ROOTS_COUNTED) {
        keptByRoot.clear(); // roots this replica never released (lost leadership): counts are a report only
      }
      keptByRoot.computeIfAbsent(keptUnder, u -> new AtomicInteger()).incrementAndGet();
      log.info("removed owner reference object={} uid={} owner={} reason=\"the dependent is kept ({} or its"
          + " policy's keep)\"", dependent.ref(), dependent.uid(), owner.ref(), Names.KEEP);
      return;
    }
    log.info("removed owner reference object={} uid={} owner={} reason=\"the dependent stays: orphaned, or"
        + " kept by another owner\"", dependent.ref(), dependent.uid(), owner.ref());
  }

  /** How many dependents this replica kept below the root {@code rootUid} so far. */
  int kept(String rootUid) {
    AtomicInteger n = keptByRoot.get(rootUid);
    return n == null ? 0 : n.get();
  }

  /** The words of SynchronousDeletionCompleted. */
  static String completed(String took, int kept, List<String> unlisted) {
    return "All dependents are gone; released after " + took
        + (kept == 0 ? "" : "; " + kept + " dependent" + (kept == 1 ? "" : "s") + " kept (" + Names.KEEP + ")")
        + (unlisted.isEmpty() ? "" : "; not checked (syncgc cannot list them): " + unlisted);
  }

  void deleted(ObjectMetadata d, ObjectMetadata owner, Long graceSeconds, boolean finalizeFirst) {
    log.info("deleted object={} uid={} owner={} graceSeconds={} withFinalizer={}", d.ref(), d.uid(),
        owner.ref(), graceSeconds, finalizeFirst);
  }

  void failed(ObjectRef ref, String uid, String reason) {
    log.warn("action failed object={} uid={} reason=\"{}\"", ref, uid, reason);
  }

  void released(ObjectMetadata owner, Outcome outcome, List<Blocker> remaining) {
    AtomicInteger keptHere = keptByRoot.remove(owner.uid());
    int kept = keptHere == null ? 0 : keptHere.get();
    Duration took = Duration.between(owner.deletionTimestamp(), clock.instant());
    String tookText = String.format("%.1fs", took.toMillis() / 1000.0);
    // an owner kept past its deadline (on-timeout: Keep) was counted and reported as timed out then
    boolean timedOutBefore = owner.annotation(Names.TIMED_OUT) != null;
    boolean counted = root(owner) && !timedOutBefore
        && (outcome != Outcome.HANDED_OVER || owner.annotation(Names.DEADLINE) != null);
    if (counted) {
      metrics.finished(outcome, took);
    }
    switch (outcome) {
      case COMPLETED -> {
        log.info("synchronous deletion completed object={} uid={} took={} kept={}", owner.ref(), owner.uid(), tookText, kept);
        if (root(owner)) {
          List<String> unlisted = unlistedKinds.get();
          events.normal(owner.ref(), EventReason.SynchronousDeletionCompleted,
              completed(tookText, kept, unlisted));
        }
      }
      case TIMED_OUT -> {
        if (timedOutBefore) {
          log.info("released after a kept timeout object={} uid={} took={}", owner.ref(), owner.uid(), tookText);
          return;
        }
        String blockers = describe(remaining);
        log.warn("synchronous deletion timed out object={} uid={} took={} remaining=\"{}\"", owner.ref(),
            owner.uid(), tookText, blockers);
        events.warning(owner.ref(), EventReason.SynchronousDeletionTimedOut, "Deadline passed after " + tookText
            + "; released with dependents remaining (they are still deleted in the background): " + blockers);
      }
      case ORPHANED -> {
        log.info("released to the API server's orphaning object={} uid={}", owner.ref(), owner.uid());
        events.normal(owner.ref(), EventReason.DependentsOrphaned, "Dependents kept: the API server's orphaning (orphan"
            + " finalizer) removes the reference to this object from every dependent of every kind before it goes");
      }
      case HANDED_OVER -> {
        log.info("handed to the built-in collector object={} uid={} reason=\"no Synchronous or Orphan"
            + " propagation in force\"", owner.ref(), owner.uid());
        if (counted) {
          events.normal(owner.ref(), EventReason.SynchronousDeletionHandedOver, "Propagation is no longer Synchronous;"
              + " the built-in garbage collector deletes the remaining dependents in the background");
        }
      }
    }
  }

  /** The deadline passed and the owner stays marked as deleted ({@code on-timeout: Keep}). */
  void keptAfterTimeout(ObjectMetadata owner, List<Blocker> remaining) {
    Duration took = Duration.between(owner.deletionTimestamp(), clock.instant());
    String tookText = String.format("%.1fs", took.toMillis() / 1000.0);
    if (root(owner)) {
      metrics.finished(Outcome.TIMED_OUT, took);
    }
    String blockers = describe(remaining);
    log.warn("synchronous deletion timed out, owner kept object={} uid={} took={} remaining=\"{}\"", owner.ref(),
        owner.uid(), tookText, blockers);
    events.warning(owner.ref(), EventReason.SynchronousDeletionTimedOut, "Deadline passed after " + tookText + "; kept ("
        + Names.ON_TIMEOUT + ": Keep) until its dependents are gone: " + blockers);
  }

  void ringReleased(ObjectMetadata owner, Step.ReleaseRing s) {
    String path = s.path().stream().map(ObjectRef::toString).collect(Collectors.joining(" -> "));
    String key = s.members().stream().map(ObjectMetadata::uid).sorted().collect(Collectors.joining(","));
    synchronized (this) { // once per ring: the mark is on every member, and goes with each
      if (s.members().stream().anyMatch(m -> key.equals(states.of(m.uid()).reportedRing))) {
        return;
      }
      s.members().forEach(m -> states.of(m.uid()).reportedRing = key);
    }
    metrics.ringFound();
    log.warn("dependency cycle released object={} uid={} cycle=\"{}\"", owner.ref(), owner.uid(), path);
    for (ObjectMetadata member : s.members()) {
      events.warning(member.ref(), EventReason.DependencyCycle,
          "Ownership cycle " + path + " released as a unit: every member is being deleted");
    }
  }

  /**
   * Sends {@code WaitingForDependents} once an owner has waited a moment (an owner a cascade put under
   * deletion: a whole interval, so that a cascade making progress sends none, while one stuck deep in a
   * tree still names what holds it), then at most once per interval.
   *
   * @return how long until the first Event is due, while it is not yet; else null
   */
  Duration waiting(ObjectMetadata owner, Step.Wait s) {
    Instant now = clock.instant();
    Instant firstEventAt = owner.deletionTimestamp()
        .plus(root(owner) ? FIRST_WAITING_EVENT_AFTER : waitingEventInterval);
    ObjectStates.State state = states.of(owner.uid());
    Instant last = state.lastWaitingEvent;
    if (last == null && now.isBefore(firstEventAt)) {
      return Duration.between(now, firstEventAt);
    }
    if (last == null || Duration.between(last, now).compareTo(waitingEventInterval) >= 0) {
      state.lastWaitingEvent = now;
      List<String> notChecked = unlistedKinds.get();
      events.normal(owner.ref(), EventReason.WaitingForDependents, s.message(owner.annotation(Names.TIMED_OUT) != null)
          + (notChecked.isEmpty() ? "" : "; not checked (syncgc cannot list them): " + notChecked));
    }
    return null;
  }

  /**
   * SPEC "In use": a used object waits for its users. {@code WaitingForUsers} when the hold begins,
   * then at most once per interval while it lasts, as {@code WaitingForDependents}.
   */
  void waitingForUsers(ObjectMetadata used, Step.WaitForUsers s, boolean begins) {
    Instant now = clock.instant();
    ObjectStates.State state = states.of(used.uid());
    Instant last = state.lastWaitingEvent;
    if (begins) {
      log.info("held in use object={} uid={} users=\"{}\"", used.ref(), used.uid(), s.users());
    }
    if (last == null || Duration.between(last, now).compareTo(waitingEventInterval) >= 0) {
      state.lastWaitingEvent = now;
      events.normal(used.ref(), EventReason.WaitingForUsers, s.message());
    }
  }

  /** The hold ended: its duration counted; the next waiting Event is not held back by the hold's. */
  void usersGone(ObjectMetadata used, Duration held) {
    log.info("no longer in use object={} uid={} heldSeconds={}", used.ref(), used.uid(), held.toSeconds());
    metrics.inUseHeld(held);
    states.of(used.uid()).lastWaitingEvent = null;
  }

  /**
   * Users that use each other, all being deleted: the hold lifted for all of them. Reported once per
   * ring, on every member (the first member planned may be gone before the others are looked at).
   */
  void usersRing(ObjectMetadata used, Step.RingOfUsers s) {
    String path = s.path().stream().map(ObjectRef::toString).collect(Collectors.joining(" -> "));
    List<ObjectRef> members = s.path().stream().distinct().toList();
    String key = "uses:" + members.stream().map(ObjectRef::uid).sorted().collect(Collectors.joining(","));
    synchronized (this) {
      if (members.stream().anyMatch(m -> key.equals(states.of(m.uid()).reportedRing))) {
        return;
      }
      members.forEach(m -> states.of(m.uid()).reportedRing = key);
    }
    metrics.ringFound();
    log.warn("usage cycle released object={} uid={} cycle=\"{}\"", used.ref(), used.uid(), path);
    for (ObjectRef member : members) {
      events.warning(member, EventReason.DependencyCycle, "Usage cycle " + path + " (each uses the one before, "
          + Names.USES + ") released as a unit: every member is being deleted");
    }
  }

  private static String describe(List<Blocker> blockers) {
    return blockers.stream().map(Blocker::toString).collect(Collectors.joining(", "));
  }
}
