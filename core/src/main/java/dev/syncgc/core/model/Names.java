package dev.syncgc.core.model;

/** The names SPEC.md fixes, and the ones syncgc adds of its own. */
public final class Names {
  public static final String FINALIZER = "syncgc.dev/GarbageCollectionInProgress";
  public static final String ANNOTATION_PREFIX = "syncgc.dev/";
  public static final String PROPAGATION = "syncgc.dev/propagation";
  public static final String TIMEOUT = "syncgc.dev/timeout";
  public static final String GRACE_PERIOD = "syncgc.dev/grace-period-seconds";
  /** On a dependent: among its owner's dependents, the highest wave is deleted first. */
  public static final String DELETION_WAVE = "syncgc.dev/deletion-wave";
  /**
   * On a dependent: {@code true} keeps it out of every syncgc cascade through it (only the reference to
   * the owner being deleted is removed); {@code false} or absent: the default. An invalid value counts
   * as {@code true} (SPEC "Keep one dependent").
   */
  public static final String KEEP = "syncgc.dev/keep";
  /**
   * On a user: the objects it uses ({@code KIND[.GROUP]/NAME}, comma-separated); an opted-in used
   * object under deletion waits for its users (SPEC "In use").
   */
  public static final String USES = "syncgc.dev/uses";
  /**
   * On a cluster-scoped used object: the namespaces whose users hold it (namespace names,
   * comma-separated, or {@code *}); cluster-scoped users always do (SPEC "In use").
   */
  public static final String USERS_FROM = "syncgc.dev/users-from";
  /** On an owner: {@code Release} (default) or {@code Keep} when the deadline passes. */
  public static final String ON_TIMEOUT = "syncgc.dev/on-timeout";
  /** When the running synchronous deletion gives up (RFC 3339); written when it starts. */
  public static final String DEADLINE = "syncgc.dev/deadline";
  /**
   * The propagation syncgc last saw in force on an opted-in object while it was alive (annotation or
   * policy), written with the finalizer and kept up to date: what its deletion follows (SPEC "Which
   * propagation decides": a change after the deletion began never turns Orphan into a cascade).
   */
  public static final String LAST_VALID_PROPAGATION = "syncgc.dev/last-valid-propagation";
  /**
   * The last valid {@code syncgc.dev/timeout}, {@code on-timeout}, {@code grace-period-seconds} and
   * {@code users-from} syncgc saw on an opted-in object (the annotation's own text), written beside its finalizer and
   * kept up to date while it is alive: in force while the annotation is invalid (SPEC "Opting in" 2).
   */
  public static final String LAST_VALID_TIMEOUT = "syncgc.dev/last-valid-timeout";
  public static final String LAST_VALID_ON_TIMEOUT = "syncgc.dev/last-valid-on-timeout";
  public static final String LAST_VALID_GRACE_PERIOD = "syncgc.dev/last-valid-grace-period-seconds";
  public static final String LAST_VALID_USERS_FROM = "syncgc.dev/last-valid-users-from";
  /**
   * On an owner under synchronous deletion: how many dependents, direct and indirect, it had when
   * the deletion started (written with the deadline; {@code kubectl syncgc status} shows progress).
   */
  public static final String DEPENDENTS_AT_START = "syncgc.dev/dependents-at-start";
  /** When the deadline of an owner kept past it ({@code on-timeout: Keep}) was reported (RFC 3339). */
  public static final String TIMED_OUT = "syncgc.dev/timed-out";
  /** On a dependent that syncgc put under synchronous deletion: the uid of the owner. */
  public static final String CASCADED_FROM = "syncgc.dev/cascaded-from";
  /**
   * On a dependent syncgc put under synchronous deletion: its cascading owner's grace period when the
   * cascade reached it, used once that owner is gone; removed if the dependent survives the cascade.
   */
  public static final String INHERITED_GRACE_PERIOD = "syncgc.dev/inherited-grace-period-seconds";
  /**
   * On a dependent an owner released at its Release deadline left behind because a call on it still
   * failed (a refused DELETE): the owner's uid. syncgc deletes it once every owner it names is gone
   * and nothing refuses any more (SPEC: the remaining dependents are still deleted afterwards).
   */
  public static final String LEFT_BEHIND_BY = "syncgc.dev/left-behind-by";
  /** Kubernetes' own finalizers, set by kubectl delete --cascade=orphan|foreground. */
  public static final String ORPHAN_FINALIZER = "orphan";
  public static final String FOREGROUND_FINALIZER = "foregroundDeletion";
  public static final String COMPONENT = "syncgc";

  private Names() {}
}
