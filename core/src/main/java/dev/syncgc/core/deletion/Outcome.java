package dev.syncgc.core.deletion;

/** How a deletion that syncgc held ended; the label of the deletions-finished metric. */
public enum Outcome {
  /** Every dependent is gone (or a ring was released as a unit). */
  COMPLETED("completed"),
  /** The deadline expired first; the remaining dependents go on in the background. */
  TIMED_OUT("timed_out"),
  /** Dependents were kept: Orphan propagation or kubectl delete --cascade=orphan. */
  ORPHANED("orphaned"),
  /** The propagation became Background (or none is known) mid-deletion: the built-in collector takes over. */
  HANDED_OVER("handed_over");

  private final String label;

  Outcome(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
