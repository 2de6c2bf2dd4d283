package dev.syncgc.engine;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * What the engine keeps about objects beyond the graph: one {@link State} per object that has any,
 * created on first use and dropped, with all it holds, when the object is gone (as the Kubernetes
 * garbage collector keeps an object's flags on its graph node). Readers that only look use
 * {@link #peek}, so that looking at an object never creates its record.
 */
final class ObjectStates {
  /**
   * One object's flags. Each field is written by one part of the engine, named beside it; reads
   * may come from any worker.
   */
  static final class State {
    /** FreshnessBarrier: when the graph first saw the object being deleted (System.nanoTime), or -1. */
    volatile long deletionSeenNanos = -1;
    /** FreshnessBarrier: the resourceVersion it was first seen being deleted at, 0 if unknown. */
    volatile long deletionSeenVersion;
    /** FreshnessBarrier: the graph's view is as fresh as the object's deletion. */
    volatile boolean verified;
    /** ObjectSync: held by syncgc while its dependents go. */
    volatile boolean inProgress;
    /** ObjectSync: warned once that nothing tells its propagation. */
    volatile boolean warnedUnknown;
    /** ObjectSync: invalid annotations and owner references reported already (one Event each). */
    final Set<String> reported = ConcurrentHashMap.newKeySet();
    /** DependentActions, LeftBehindSync ({@link #failed}): why and when the last call on it failed, named as its blocker; null if none. */
    volatile Failure lastFailure;
    /** DependentActions: a DELETE went to it and the graph has not seen it being deleted yet. */
    volatile boolean deleteSent;
    /** OwnerRelease: the Orphan hand-over DELETE was answered with the orphan finalizer: never sent again. */
    volatile boolean handedOver;
    /** DeletionReporter: when its last WaitingForDependents Event went out; null if none. */
    volatile java.time.Instant lastWaitingEvent;
    /** DeletionReporter: the members (sorted uids) of the ring it was released with, once reported. */
    volatile String reportedRing;
  }

  /** Why a call on an object failed, in the API server's words, and when. */
  record Failure(String why, java.time.Instant at) {}

  private final ConcurrentHashMap<String, State> states = new ConcurrentHashMap<>();
  /** Whether the graph holds the object: a record is kept only for one it holds. */
  private final Predicate<String> tracked;

  /** Records for any object (tests of one part). */
  ObjectStates() {
    this(uid -> true);
  }

  ObjectStates(Predicate<String> tracked) {
    this.tracked = tracked;
  }

  /**
   * The object's record, created if it has none. A worker often writes after its call returns, when
   * the object may be gone and forgotten already: for an object the graph no longer holds the record
   * is not kept (what is written to it goes with the object). The graph drops an object before
   * {@link #forget}, so a record created as it goes is removed by one or the other.
   */
  State of(String uid) {
    State state = states.computeIfAbsent(uid, k -> new State());
    if (!tracked.test(uid)) {
      states.remove(uid, state);
    }
    return state;
  }

  /**
   * The record of an object the watch delivers before the graph holds it (its deletion seen first):
   * kept whatever the graph holds, as the object's delete event, which forgets it, comes after.
   */
  State arriving(String uid) {
    return states.computeIfAbsent(uid, k -> new State());
  }

  /** The object's record, or null if it has none. */
  State peek(String uid) {
    return states.get(uid);
  }

  /** A call on the object failed: why, in the API server's words, and when; named as its blocker. */
  void failed(String uid, String why, java.time.Instant at) {
    of(uid).lastFailure = new Failure(why, at);
  }

  /** Why and when the last call on the object failed; null if none (or it succeeded since). */
  Failure lastFailure(String uid) {
    State state = peek(uid);
    return state == null ? null : state.lastFailure;
  }

  /** The object is gone: everything kept about it goes. */
  void forget(String uid) {
    states.remove(uid);
  }

  Collection<java.util.Map.Entry<String, State>> all() {
    return states.entrySet();
  }

  int size() {
    return states.size();
  }
}
