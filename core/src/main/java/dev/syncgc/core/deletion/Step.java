package dev.syncgc.core.deletion;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Collectors;

/** One thing the I/O edge must do for an owner under deletion. */
public sealed interface Step {

  /**
   * SPEC "In use": the object is used and must wait for its users, named (at most ten), before
   * anything of its own deletion starts; no deadline runs. Look again when a user changes or goes.
   */
  record WaitForUsers(List<ObjectRef> users) implements Step {
    public WaitForUsers {
      users = List.copyOf(users);
    }

    /** The words of the {@code WaitingForUsers} Event (and of {@code kubectl syncgc why}). */
    public String message() {
      int n = users.size();
      return "Waiting for " + n + " user" + (n == 1 ? "" : "s") + " before its own deletion starts ("
          + Names.USES + "): " + users.stream().limit(DeletionPlanner.MAX_BLOCKERS_REPORTED).map(ObjectRef::toString)
          .collect(Collectors.joining(", ")) + (n > DeletionPlanner.MAX_BLOCKERS_REPORTED ? ", ..." : "");
    }
  }

  /**
   * SPEC "In use": the object's users use it back, all being deleted: the hold is lifted for every
   * one of them at once. {@code path} is a closed path through them (each uses the one before),
   * the object first and last; reported as a {@code DependencyCycle}.
   */
  record RingOfUsers(List<ObjectRef> path) implements Step {}

  /** The synchronous deletion begins: record its deadline on the owner. */
  record Start(Instant deadline, int dependentCount) implements Step {
    /** What it writes on the owner: the deadline, and how many dependents there were. */
    public Map<String, String> annotations() {
      return Map.of(Names.DEADLINE, deadline.toString(), Names.DEPENDENTS_AT_START, Integer.toString(dependentCount));
    }
  }

  /**
   * What an owner's cascade passes on to each dependent it deletes, the same for every one of a plan.
   *
   * @param ownerUid the owner whose cascade it is
   * @param deadline the owner's deadline
   * @param gracePeriodSeconds the grace period of each DELETE (the owner's setting in force); null: the
   *     dependent's own default
   */
  record Cascade(String ownerUid, Instant deadline, Long gracePeriodSeconds) {
    /** What a cascade writes on a dependent, removed again from one that survives it. */
    public static final List<String> MARKS = List.of(Names.CASCADED_FROM, Names.DEADLINE, Names.INHERITED_GRACE_PERIOD);

    /**
     * The annotations a dependent put under synchronous deletion carries, beside the finalizer: where the
     * cascade came from, the owner's deadline, and the grace period for when the owner is gone (while the
     * owner exists the dependent follows the owner's settings as they are then, an on-timeout Keep included).
     */
    public Map<String, String> marks() {
      Map<String, String> marks = new LinkedHashMap<>();
      marks.put(Names.CASCADED_FROM, ownerUid);
      marks.put(Names.DEADLINE, deadline.toString());
      if (gracePeriodSeconds != null) {
        marks.put(Names.INHERITED_GRACE_PERIOD, gracePeriodSeconds.toString());
      }
      return marks;
    }
  }

  /**
   * Remove the owner's reference from a dependent that another, solid owner keeps, or that is kept
   * itself.
   *
   * @param kept the dependent is kept itself ({@code syncgc.dev/keep}, or its policy's {@code keep}):
   *     SPEC "Keep one dependent", counted in {@code SynchronousDeletionCompleted}
   */
  record DropReference(ObjectMetadata dependent, String ownerUid, boolean kept) implements Step {
    public DropReference(ObjectMetadata dependent, String ownerUid) {
      this(dependent, ownerUid, false);
    }
  }

  /**
   * Delete a dependent, with the cascade's grace period. If {@code finalizeFirst}, it has dependents of
   * its own: put it under synchronous deletion first (the finalizer, with the cascade's {@link
   * Cascade#marks}).
   *
   * @param users the uids of the dependent's users the plan saw and let it go despite (users that use
   *     each other, going as a unit), so that one that appears before the call is sent stops it
   *     ({@link SendCheck#userAppeared}); null when usage is not looked at
   */
  record DeleteDependent(ObjectMetadata dependent, boolean finalizeFirst, Set<String> users, Cascade cascade)
      implements Step {
    public DeleteDependent {
      users = users == null ? null : Set.copyOf(users);
    }
  }

  /**
   * Hand the owner's dependents to the API server's orphaning: DELETE the owner again with
   * {@code propagationPolicy: Orphan} and a uid precondition. The API server adds the {@code orphan}
   * finalizer, and the built-in collector removes the reference to the owner from every dependent of
   * every kind and namespace (also those syncgc does not watch) before it lets the owner go.
   *
   * @param gracePeriodSeconds 0 for an owner whose graceful deletion (a Pod terminating) has run out,
   *     as the kubelet does at that point; else null
   */
  record HandToOrphaning(Long gracePeriodSeconds) implements Step {}

  /**
   * Let the owner go: remove the syncgc finalizer.
   *
   * @param leftBehind at a Release deadline, the dependents whose calls still fail: marked as left
   *     behind, so that syncgc deletes them once nothing refuses it (SPEC: the remaining dependents
   *     are still deleted afterwards)
   */
  record Release(Outcome outcome, List<Blocker> remaining, List<ObjectMetadata> leftBehind) implements Step {
    public Release {
      leftBehind = List.copyOf(leftBehind);
    }

    public Release(Outcome outcome, List<Blocker> remaining) {
      this(outcome, remaining, List.of());
    }
  }

  /** Let every member of a ring go at once; {@code path} is a closed path through it, first member repeated last. */
  record ReleaseRing(List<ObjectMetadata> members, List<ObjectRef> path) implements Step {}

  /**
   * The deadline passed and the owner is kept ({@code syncgc.dev/on-timeout: Keep}): report it once
   * (Event, metric, and a mark on the owner so that it is not reported again), then go on.
   */
  record TimedOut(List<Blocker> remaining) implements Step {}

  /**
   * Nothing more to do now; look again when a dependent changes, or at the deadline.
   *
   * @param remaining how many dependents are left; {@code blockers} names at most ten of them, those
   *     of the wave being deleted first
   * @param deadline look again by then at the latest; {@link Instant#MAX} once a kept owner's
   *     deadline has passed
   * @param wave the deletion wave being waited for, when the dependents are not all in wave 0
   */
  record Wait(List<Blocker> blockers, int remaining, Instant deadline, OptionalInt wave) implements Step {
    public Wait(List<Blocker> blockers, int remaining, Instant deadline) {
      this(blockers, remaining, deadline, OptionalInt.empty());
    }

    /**
     * The words of the {@code WaitingForDependents} Event (and of {@code kubectl syncgc why}).
     *
     * @param pastDeadline the owner is kept past its deadline ({@code on-timeout: Keep})
     */
    public String message(boolean pastDeadline) {
      String detail = wave.isPresent() ? " (deletion wave " + wave.getAsInt() + " first)" : "";
      if (pastDeadline) {
        detail += ", past the deadline (" + Names.ON_TIMEOUT + ": Keep)";
      }
      return "Waiting for " + remaining + " dependent" + (remaining == 1 ? "" : "s") + detail + ": "
          + blockers.stream().map(Blocker::toString).collect(Collectors.joining(", "));
    }
  }
}
