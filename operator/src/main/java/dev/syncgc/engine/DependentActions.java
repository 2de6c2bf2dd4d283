package dev.syncgc.engine;

import dev.syncgc.core.deletion.Failures;
import dev.syncgc.core.deletion.Ring;
import dev.syncgc.core.deletion.SendCheck;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.LinkValidity;
import dev.syncgc.core.graph.OwnerState;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.ObjectWrites;
import dev.syncgc.kube.Answer;
import dev.syncgc.kube.ApiResult;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.kube.TrackedKind;
import java.time.Clock;
import java.time.Instant;
import java.util.function.Supplier;

/**
 * The calls on an owner's dependents: removing the reference to the owner, deleting them (each
 * DELETE conditional on the version it was decided on), and why the last call on one failed, which
 * the planner names as the blocker.
 */
final class DependentActions {
  private final DependencyGraph graph;
  private final KubeApi api;
  private final ObjectWrites writes;
  private final DeletionReporter reporter;
  private final Reflectors reflectors;
  private final ObjectStates states;
  private final SendCheck check;
  private final Clock clock;

  DependentActions(DependencyGraph graph, KubeApi api, DeletionReporter reporter, Reflectors reflectors,
      ObjectStates states, SendCheck check, Clock clock) {
    this.clock = clock;
    this.states = states;
    this.check = check;
    this.graph = graph;
    this.api = api;
    this.writes = new ObjectWrites(api);
    this.reporter = reporter;
    this.reflectors = reflectors;
  }

  String lastFailure(String uid) {
    ObjectStates.Failure failure = failureOf(uid);
    return failure == null ? null : failure.why();
  }

  /** Why and when the last call on each object failed, as the planner reads it. */
  Failures failures() {
    return new Failures() {
      @Override
      public String why(String uid) {
        return lastFailure(uid);
      }

      @Override
      public Instant at(String uid) {
        ObjectStates.Failure failure = failureOf(uid);
        return failure == null ? null : failure.at();
      }
    };
  }

  private ObjectStates.Failure failureOf(String uid) {
    return states.lastFailure(uid);
  }

  /**
   * Whether a DELETE of the object would be a second one: one was sent and the graph has not seen the
   * object being deleted yet, or the graph has seen it deleted since the plan was made (the object's
   * record, {@code deleteSent} included, went with it).
   */
  boolean deleteSent(String uid) {
    ObjectStates.State state = states.peek(uid);
    return state != null && state.deleteSent || graph.seenDeleted(uid);
  }

  void deletionSeen(String uid) {
    ObjectStates.State state = states.peek(uid);
    if (state != null) {
      state.deleteSent = false;
    }
  }

  private void failure(String uid, String reason) {
    states.failed(uid, reason, clock.instant());
  }

  private void succeeded(String uid) {
    ObjectStates.State state = states.peek(uid);
    if (state != null) {
      state.lastFailure = null;
    }
  }

  /** @param cascading why the owner's deletion no longer cascades (or this replica no longer leads), or null */
  Next dropReference(Step.DropReference drop, ObjectMetadata owner, Supplier<String> cascading) {
    ObjectMetadata dependent = drop.dependent();
    ApiResult r = writes.removeOwnerReference(reflectors.kindOf(dependent.ref()), dependent, owner.uid(), cascading);
    Answer answer = r.answer();
    if (answer.settled()) {
      succeeded(dependent.uid());
      reporter.referenceDropped(dependent, owner, drop.kept() && answer == Answer.DONE ? rootOf(owner) : null);
      return Next.DONE;
    }
    return failed(dependent, "removing its owner reference", r);
  }

  /**
   * The owner the user deleted, whose cascade reached {@code owner}: up the {@link Names#CASCADED_FROM}
   * chain while the graph holds it (a ring of cascades ends after 64 steps).
   */
  private String rootOf(ObjectMetadata owner) {
    ObjectMetadata at = owner;
    for (int i = 0; i < 64; i++) {
      String up = at.annotation(Names.CASCADED_FROM);
      ObjectMetadata next = up == null ? null : graph.get(up);
      if (next == null) {
        break;
      }
      at = next;
    }
    return at.uid();
  }

  /**
   * Each write goes only if, when it is sent, the owner's deletion still cascades ({@code cascading}),
   * the graph has not seen the dependent deleted, and no other owner keeps it as the graph has it then.
   */
  Next delete(Step.DeleteDependent step, ObjectMetadata owner, Supplier<String> cascading) {
    ObjectMetadata d = step.dependent();
    boolean finalizeFirst = step.finalizeFirst();
    TrackedKind kind = reflectors.kindOf(d.ref());
    if (graph.seenDeleted(d.uid())) {
      return Next.DONE; // gone while the call waited for its turn
    }
    if (unseenOwnerExists(d, owner)) {
      return Next.RETRY;
    }
    Supplier<String> stands = () -> {
      String why = cascading.get();
      why = why != null ? why : graph.seenDeleted(d.uid()) ? "the dependent is gone" : check.dependentKept(owner, d);
      return why != null ? why : check.userAppeared(d, step.users(), finalizeFirst);
    };
    long resourceVersion = d.resourceVersion();
    if (finalizeFirst) {
      ApiResult r = writes.addFinalizer(kind, d, Names.FINALIZER, step.cascade().marks(), stands);
      Answer answer = r.answer();
      if (answer == Answer.GONE) {
        return Next.DONE;
      }
      if (answer != Answer.DONE) {
        return failed(d, "adding the syncgc finalizer", r);
      }
      resourceVersion = r.resourceVersion(); // the version this decision now stands on
    }
    Long grace = step.cascade().gracePeriodSeconds();
    // uid and resourceVersion preconditions: a change since the graph's view (a controller adopting
    // it, the object recreated) makes the API server refuse with 409, and the owner is planned again
    ApiResult r = writes.delete(kind, d.ref(), resourceVersion, grace, "Background", stands);
    if (r.answer().settled()) {
      succeeded(d.uid());
      states.of(d.uid()).deleteSent = true;
      reporter.deleted(d, owner, grace, finalizeFirst);
      return Next.DONE;
    }
    return failed(d, "DELETE", r);
  }

  /**
   * Safety invariant 1 must not rest on the cache alone: an owner the graph has not seen (yet) is
   * looked up, as the built-in collector does, before its dependent is deleted. When the dependent
   * sits in a ring, the planner judged the ring kept by nothing from the graph's view, so the same
   * holds for every outside owner of every member: one the graph has not seen (created just before
   * the delete, of a kind the freshness check did not list, or whose LIST was refused) may keep the
   * whole ring. An owner that exists, or a lookup that failed, blocks the DELETE and is recorded as
   * the reason.
   */
  private boolean unseenOwnerExists(ObjectMetadata d, ObjectMetadata owner) {
    for (OwnerLink link : d.owners()) {
      if (!link.uid().equals(owner.uid()) && unseenOwnerExists(d, d, link)) {
        return true;
      }
    }
    Ring ring = Ring.of(graph, d);
    if (ring.members().size() < 2) {
      return false; // no ring, or d owning itself: its own owners are all there is
    }
    for (ObjectMetadata member : ring.members()) {
      if (member.uid().equals(d.uid())) {
        continue;
      }
      for (OwnerLink link : member.owners()) {
        if (!ring.contains(link.uid()) && unseenOwnerExists(d, member, link)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Whether {@code holder}'s owner named by {@code link} is one the graph has not seen that exists,
   * or could not be looked up; either is recorded as what blocks deleting {@code d}.
   */
  private boolean unseenOwnerExists(ObjectMetadata d, ObjectMetadata holder, OwnerLink link) {
    if (graph.validity(holder, link) != LinkValidity.VALID || graph.ownerState(link) != OwnerState.ABSENT) {
      return false;
    }
    TrackedKind kind = reflectors.kind(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
    if (kind == null) {
      return false;
    }
    String named = holder == d ? "its owner " + link.kind() + "/" + link.name()
        : "the owner " + link.kind() + "/" + link.name() + " of its ring member " + holder.ref().kind() + "/"
            + holder.ref().name();
    ApiResult r = api.get(kind, kind.namespaced() ? holder.ref().namespace() : null, link.name());
    Answer answer = r.answer();
    if (answer == Answer.DONE && link.uid().equals(r.uid())) {
      failure(d.uid(), named + " exists but is not seen yet");
      return true;
    }
    if (!answer.settled()) {
      failed(d, "looking up " + named, r);
      return true;
    }
    return false;
  }

  private Next failed(ObjectMetadata d, String what, ApiResult r) {
    if (r.answer() == Answer.STALE) {
      // the facts changed since the plan (not sent, or a precondition failed): done if the dependent is
      // gone, else plan again on the fresh view
      return graph.seenDeleted(d.uid()) ? Next.DONE : Next.RETRY;
    }
    // the API server's own words say what blocks: RBAC's "cannot", an admission policy's or webhook's denial
    String reason = r.words(what);
    failure(d.uid(), reason);
    reporter.failed(d.ref(), d.uid(), reason);
    return Next.RETRY;
  }

}
