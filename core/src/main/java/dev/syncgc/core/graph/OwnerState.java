package dev.syncgc.core.graph;

/** What a dependent's owner is, as far as the graph can tell. */
public enum OwnerState {
  /** Exists with the referenced uid and is not being deleted. */
  SOLID,
  /** Of a kind syncgc does not watch: it cannot be seen, so it is presumed solid. */
  PRESUMED_SOLID,
  DELETING,
  ABSENT;

  public boolean solid() {
    return this == SOLID || this == PRESUMED_SOLID;
  }
}
