package dev.syncgc.e2e.soak;

import java.util.Set;

/**
 * One of the {@link Oracle}'s rules: what it promises of one kind (an order, a reference removed
 * first, a DELETE allowed, a hold of use) for a scenario's action, given what the action's cascade
 * deletes. {@link Checks} and {@link AuditCheck} judge the record against the promise.
 */
@FunctionalInterface
interface Rule<T> {
  T expect(Scenario s, Set<SoakObject> cascade);
}
