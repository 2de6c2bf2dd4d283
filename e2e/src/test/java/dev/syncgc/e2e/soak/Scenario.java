package dev.syncgc.e2e.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One owner with everything below it, what opts it in, and what the soak does to it. */
final class Scenario {

  /** How the root is opted in (and so which propagation it has). */
  enum Shape {
    /** {@code syncgc.dev/propagation: Synchronous} on the root. */
    SYNC_ANNOTATION,
    /** A GarbageCollectionPolicy with {@code Synchronous} selecting the root by label. */
    SYNC_POLICY,
    /** {@code syncgc.dev/propagation: Orphan} on the root. */
    ORPHAN_ANNOTATION,
    /** A GarbageCollectionPolicy with {@code Orphan} selecting the root by label. */
    ORPHAN_POLICY,
    /** Not opted in: the built-in collector alone. */
    BUILTIN,
    /** Cluster-scoped objects only, root Synchronous. */
    CLUSTER_SYNC,
    /** A ring of Widgets owned by nobody outside it, which nothing deletes. */
    LONE_RING
  }

  /** What the soak does. */
  enum Action {
    /** A plain DELETE, as {@code kubectl delete} sends (propagation Background). */
    DELETE,
    FOREGROUND,
    /** {@code kubectl delete --cascade=orphan}. */
    ORPHAN_CASCADE,
    NAMESPACE,
    /** A new dependent of a node in the tree is created immediately before the root is deleted. */
    RACE,
    /** The annotation is removed before deletion (the finalizer must go, then a plain DELETE). */
    UNANNOTATE,
    /** The policy is deleted before deletion (the finalizer must go, then a plain DELETE). */
    DROP_POLICY,
    /** The annotation is changed from Synchronous to Orphan just before a plain DELETE. */
    REORPHAN,
    /**
     * A plain DELETE of an Orphan root, then its annotation is changed to Synchronous while it is
     * being deleted: the propagation in force when the deletion began decides (SPEC "Which
     * propagation decides"), so nothing below it goes.
     */
    UNORPHAN,
    /** A plain DELETE of a root an Orphan policy selects, then the policy is changed to Synchronous. */
    POLICY_TO_SYNC,
    NONE
  }

  /** How the deletion goes, as the model sees it. */
  enum Mode { SYNC, ORPHAN, BUILTIN, NAMESPACE, NONE }

  /**
   * A short deadline ({@link Oracle#TIMEOUT_MILLIS}) far shorter than the hold of {@link #held}, and
   * what it does ({@code syncgc.dev/on-timeout}, SPEC "What a deadline does").
   */
  enum Deadline {
    /** The operators' default deadline (10 min): never reached in a round. */
    NONE,
    /** {@code Release} (the default): the owner goes at its deadline, its dependents after it. */
    RELEASE,
    /** {@code Keep}: the owner stays marked as deleted past its deadline until its dependents are gone. */
    KEEP
  }

  final String id;
  final Shape shape;
  final Action action;
  /** The scenario's own namespace (null for cluster-scoped scenarios). */
  final String namespace;
  final List<SoakObject> objects = new ArrayList<>();
  SoakObject root;
  /** The root's short deadline, if any, and what it does; set by annotation or by the policy. */
  Deadline deadline = Deadline.NONE;
  /** With a short deadline: the root's dependent held by another controller's finalizer past it. */
  SoakObject held;
  /** The policy's name for the policy shapes. */
  String policy;
  /** The dependent created just before the deletion (RACE). */
  SoakObject raced;
  /**
   * Users outside what the action deletes ({@link Generator}, usage {@link Soak.Uses#WIDE}): each
   * with how long after the action the soak deletes it (a plain DELETE); negative: never in the round.
   */
  final Map<SoakObject, Long> outsideUsers = new LinkedHashMap<>();

  Scenario(String id, Shape shape, Action action, String namespace) {
    this.id = id;
    this.shape = shape;
    this.action = action;
    this.namespace = namespace;
  }

  Mode mode() {
    return switch (action) {
      case NONE -> Mode.NONE;
      case NAMESPACE -> Mode.NAMESPACE;
      case ORPHAN_CASCADE, REORPHAN, UNORPHAN, POLICY_TO_SYNC -> Mode.ORPHAN;
      case UNANNOTATE, DROP_POLICY, FOREGROUND -> Mode.BUILTIN;
      case DELETE, RACE -> switch (shape) {
        case SYNC_ANNOTATION, SYNC_POLICY, CLUSTER_SYNC -> Mode.SYNC;
        case ORPHAN_ANNOTATION, ORPHAN_POLICY -> Mode.ORPHAN;
        case BUILTIN -> Mode.BUILTIN;
        case LONE_RING -> Mode.NONE;
      };
    };
  }

  /** Whether the root carries syncgc's finalizer before the action. */
  boolean optedIn() {
    return shape != Shape.BUILTIN && shape != Shape.LONE_RING;
  }

  /**
   * The propagation in force when the root's deletion begins is {@code Orphan}: syncgc hands the
   * root to the API server's orphaning (a DELETE of the root with {@code propagationPolicy: Orphan}
   * and its uid as precondition). Not so for {@code kubectl delete --cascade=orphan} of a
   * Synchronous root: the API server orphans, syncgc only lets go (SPEC step 1).
   */
  boolean orphanInForce() {
    return shape == Shape.ORPHAN_ANNOTATION || shape == Shape.ORPHAN_POLICY || action == Action.REORPHAN;
  }

  /** The root is Synchronous by annotation or policy (what a namespace deletion finds it). */
  boolean synchronousRoot() {
    return shape == Shape.SYNC_ANNOTATION || shape == Shape.SYNC_POLICY || shape == Shape.CLUSTER_SYNC;
  }

  /** A short deadline set on a synchronous deletion. */
  boolean timesOut() {
    return deadline != Deadline.NONE;
  }

  @Override
  public String toString() {
    return id + " (" + shape + ", " + action + (deadline == Deadline.NONE ? ""
        : ", " + Oracle.TIMEOUT_MILLIS / 1000 + " s deadline, on-timeout " + deadline) + ", " + objects.size()
        + " objects" + (uses() == 0 ? "" : ", " + uses() + " uses") + (outsideUsers.isEmpty() ? ""
        : ", users outside " + outsideUsers.keySet().stream().map(u -> u.name + (outsideUsers.get(u) < 0 ? " (kept)"
            : " (deleted at +" + outsideUsers.get(u) + " ms)")).toList()) + ")";
  }

  /** The users outside the action the soak deletes after it, by delay. */
  Map<SoakObject, Long> lateUsers() {
    Map<SoakObject, Long> out = new LinkedHashMap<>();
    outsideUsers.forEach((u, delay) -> {
      if (delay >= 0) {
        out.put(u, delay);
      }
    });
    return out;
  }

  /** Its usage edges ({@code syncgc.dev/uses} entries). */
  int uses() {
    return objects.stream().mapToInt(o -> o.uses.size()).sum();
  }
}
