package dev.syncgc.e2e.support;

/** The names SPEC.md fixes, as the tests use them (deliberately not taken from the operator's code). */
public final class SpecNames {
  /** The operator's finalizer. */
  public static final String FINALIZER = "syncgc.dev/GarbageCollectionInProgress";
  public static final String PROPAGATION = "syncgc.dev/propagation";
  public static final String TIMEOUT = "syncgc.dev/timeout";
  public static final String GRACE_PERIOD = "syncgc.dev/grace-period-seconds";
  /** What an object uses (SPEC "In use"): it waits for its users. */
  public static final String USES = "syncgc.dev/uses";
  /** Values of {@link #PROPAGATION}. */
  public static final String SYNCHRONOUS = "Synchronous";
  public static final String ORPHAN = "Orphan";
  public static final String BACKGROUND = "Background";
  /** The source component of the Events the operator records. */
  public static final String COMPONENT = "syncgc";

  private SpecNames() {}
}
