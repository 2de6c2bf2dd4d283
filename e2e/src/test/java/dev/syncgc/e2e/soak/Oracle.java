package dev.syncgc.e2e.soak;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The model: for one scenario's action, which objects must go, which must stay (and with which
 * owners), which deletion must come before which, and which DELETEs syncgc may send. Written from
 * SPEC's rules and the built-in collector's, independently of the operator's code, by brute force
 * over a small graph ({@link Ownership}). Each kind of promise is a {@link Rule} of its own
 * ({@link OrderRule}, {@link UnreferencedRule}, {@link NotWhileOwnedRule}, {@link DeletesRule},
 * {@link InUseRules}); the records below are what they promise.
 */
final class Oracle {

  /** {@code first} must be gone (its DELETE revision lower) before {@code then}. */
  record Before(SoakObject first, SoakObject then, String why) {}

  /**
   * {@code dependent} must have lost its reference to {@code owner} (a version of it without the
   * reference, at a lower revision) before {@code owner} is gone: the API server's orphaning.
   */
  record Unreferenced(SoakObject dependent, SoakObject owner, String why) {}

  /**
   * {@code dependent}'s deletion must not begin (deletionTimestamp, or its DELETE) before
   * {@code owner}'s did: an object is never deleted while an owner is alive (invariant 1).
   */
  record NotWhileOwned(SoakObject dependent, SoakObject owner, String why) {}

  /**
   * What syncgc's identity may DELETE in one scenario: each object of {@code cascade} once (a
   * second DELETE answered 2xx deletes an object already being deleted), and {@code handOver}, an
   * Orphan owner under deletion, once, with {@code propagationPolicy: Orphan} (SPEC "Orphan
   * propagation"). Every DELETE carries the object's uid as precondition; nothing else is deleted.
   */
  record Deletes(Set<SoakObject> cascade, SoakObject handOver) {
    static final Deletes NONE = new Deletes(Set.of(), null);
  }

  /**
   * A usage edge ({@code syncgc.dev/uses}) between two objects the cascade deletes whose order the
   * model does not promise, and why ({@link #OWNS_WHAT_IT_USES}, {@link #RING_OF_USE},
   * {@link #MIXED_CYCLE}).
   */
  record Unjudged(SoakObject user, SoakObject used, String why) {}

  /**
   * @param deadline what the owner's short deadline promises, or null when it has none
   * @param unjudgedUses the usage edges inside the cascade that {@code order} has no pair for
   */
  record Expectation(Set<SoakObject> deleted, Map<SoakObject, Set<SoakObject>> survivorOwners,
      List<Before> order, List<Unreferenced> unreferenced, List<NotWhileOwned> notWhileOwned,
      Deletes deletes, DeadlineRule deadline, List<Unjudged> unjudgedUses, List<InUse> inUse,
      Set<SoakObject> held) {}

  /**
   * {@code used} is never gone (its DELETE revision) while {@code user}, which names it and is not
   * below it, still exists (SPEC "In use"): a user outside a synchronous cascade, of an Orphan owner,
   * of an owner whose namespace is deleted. Once the users are gone, {@code used} goes ({@code
   * deleted}); with a user never deleted in the round, it stays marked deleted ({@code held}).
   */
  record InUse(SoakObject user, SoakObject used, String why) {}

  /**
   * A short deadline (SPEC "Cycles and timeouts", "What a deadline does"): with {@code Release} the
   * owner is not gone before its deadline while a dependent that must go remains, and is gone by its
   * deadline or by when its last such dependent is gone, whichever comes first; with {@code Keep} it
   * stays marked as deleted while any of them remains, and goes once they are all gone.
   * {@link Terminating} judges both against a slack.
   */
  record DeadlineRule(SoakObject owner, Scenario.Deadline onTimeout, Set<SoakObject> dependents) {}

  static final String GOES_LAST = "the synchronous owner goes last";
  static final String KEPT = "on-timeout Keep: the owner stays past its deadline until its dependents are gone";
  static final String SOLE_OWNER = "a dependent goes before its only owner";
  static final String ORPHANED = "Orphan: the owner goes after its dependents lost the reference to it";
  static final String USERS_FIRST = "a user goes before what it uses (syncgc.dev/uses)";
  static final String OWNS_WHAT_IT_USES = "the user owns what it uses: ownership goes first (its cascade deletes it)";
  static final String RING_OF_USE = "users that use each other (a ring of use): released as a unit";
  static final String MIXED_CYCLE = "user and used lie on one cycle of ownership and use: released as a unit";
  static final String OUTSIDE_USER = "a user outside the cascade: the used object waits for it, the owner for the"
      + " used object";
  static final String HELD = "a user outside that stays: the owner is held, nothing of its deletion starts";
  static final String ORPHAN_IN_USE = "an Orphan owner in use: held until its users are gone, then handed over";
  static final String NAMESPACE_IN_USE = "a namespace deletion: the opted-in root waits for its users";
  static final String NO_SOLID_OWNER = "never deleted while an owner is alive (a dependent a Release leaves"
      + " to its other owner included)";

  /** The short deadline of a scenario that times out ({@link Generator}). */
  static final long TIMEOUT_MILLIS = 3000;

  private final Collection<SoakObject> universe;
  private final Ownership ownership;
  private final OrderRule order;
  private final UnreferencedRule unreferenced;
  private final NotWhileOwnedRule notWhileOwned;
  private final DeletesRule deletes;
  private final InUseRules inUse;

  /** @param universe every object of the round (owners outside a scenario included) */
  Oracle(Collection<SoakObject> universe) {
    this.universe = universe;
    this.ownership = new Ownership(universe);
    this.order = new OrderRule(ownership);
    this.unreferenced = new UnreferencedRule(ownership);
    this.notWhileOwned = new NotWhileOwnedRule(ownership);
    this.deletes = new DeletesRule(ownership);
    this.inUse = new InUseRules(ownership, universe);
  }

  Expectation expect(Scenario s) {
    Set<SoakObject> held = inUse.held(s) ? Set.of(s.root) : Set.of();
    Set<SoakObject> cascade = !held.isEmpty() ? Set.of() : switch (s.mode()) {
      case NONE -> Set.of();
      case ORPHAN -> Set.of(s.root);
      case NAMESPACE -> ownership.namespaced(s.namespace);
      case BUILTIN -> ownership.builtin(s.root);
      case SYNC -> ownership.synchronous(s.root);
    };
    Set<SoakObject> deleted = new LinkedHashSet<>(cascade);
    deleted.addAll(s.lateUsers().keySet()); // the soak deletes them
    Map<SoakObject, Set<SoakObject>> survivors = new LinkedHashMap<>();
    for (SoakObject o : affected(s, deleted)) {
      if (!deleted.contains(o) && !held.contains(o)) {
        Set<SoakObject> owners = new LinkedHashSet<>(o.owners);
        if (s.mode() != Scenario.Mode.BUILTIN || o.unresolvable.isEmpty()) {
          // the built-in collector cannot classify the references of an object naming what it
          // cannot resolve, so it removes none of them: the reference to a deleted owner stays
          owners.removeAll(deleted);
        }
        survivors.put(o, owners);
      }
    }
    DeadlineRule deadline = null;
    if (s.mode() == Scenario.Mode.SYNC && s.timesOut()) {
      Set<SoakObject> dependents = new LinkedHashSet<>(cascade);
      dependents.remove(s.root);
      deadline = new DeadlineRule(s.root, s.deadline, dependents);
    }
    OrderRule.Order ordered = order.expect(s, cascade);
    return new Expectation(deleted, survivors, ordered.before(),
        held.isEmpty() ? unreferenced.expect(s, cascade) : List.of(), notWhileOwned.expect(s, cascade),
        held.isEmpty() ? deletes.expect(s, cascade) : Deletes.NONE, deadline, ordered.unjudged(),
        inUse.expect(s, cascade), held);
  }

  /** Everything under the root, and every object that names something deleted: the objects to check. */
  private Set<SoakObject> affected(Scenario s, Set<SoakObject> deleted) {
    Set<SoakObject> out = new LinkedHashSet<>(s.objects);
    for (SoakObject o : universe) {
      if (o.owners.stream().anyMatch(deleted::contains) || (o.invalidOwner != null && s.objects.contains(o.invalidOwner))) {
        out.add(o);
      }
    }
    return out;
  }

  /** What a synchronous deletion of {@code root} deletes ({@link Ownership#synchronous}). */
  Set<SoakObject> synchronous(SoakObject root) {
    return ownership.synchronous(root);
  }

  /** The root and everything below it through valid references. */
  Set<SoakObject> reachable(SoakObject root) {
    return ownership.reachable(root);
  }
}
