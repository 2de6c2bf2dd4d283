package dev.syncgc.core.model;

/**
 * The reasons of the Events syncgc records (SPEC "What users see"): one vocabulary for the operator,
 * which records them, and {@code kubectl syncgc}, which reads them.
 */
public enum EventReason {
  /** On the owner: its synchronous deletion began (with the dependent count). */
  SynchronousDeletionStarted,
  /** On a used object under deletion: it waits for its users, named (rate-limited); nothing of its deletion started. */
  WaitingForUsers,
  /** On the owner: what it waits for, naming the blockers (rate-limited). */
  WaitingForDependents,
  /** On the owner: every dependent is gone; released (with the duration). */
  SynchronousDeletionCompleted,
  /** On the owner: the deadline passed (released, or kept with {@code on-timeout: Keep}). */
  SynchronousDeletionTimedOut,
  /** On each member of a ring released as a unit, naming the ring. */
  DependencyCycle,
  /** On the object: an invalid {@code syncgc.dev/} annotation value. */
  InvalidAnnotation,
  /** On the owner: its dependents were handed to the API server's orphaning. */
  DependentsOrphaned,
  /** On the owner: its propagation is no longer Synchronous; the built-in collector takes over. */
  SynchronousDeletionHandedOver,
  /** On a dependent: an owner reference Kubernetes would not honour, not followed. */
  InvalidOwnerReference,
  /**
   * On an object carrying syncgc's finalizer that the operator no longer watches (its namespace or kind
   * was dropped from the configuration): the finalizer removed at start-up, a deletion under way handed
   * over by its propagation in force.
   */
  ReleasedNoLongerTracked
}
