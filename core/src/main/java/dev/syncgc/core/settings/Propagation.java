package dev.syncgc.core.settings;

import java.util.Optional;

/** The values of the {@code syncgc.dev/propagation} annotation. */
public enum Propagation {
  /** Delete dependents first, the owner last; the owner's DELETE completes when all are gone. */
  SYNCHRONOUS("Synchronous"),
  /** Remove the owner's reference from every dependent; dependents survive. */
  ORPHAN("Orphan"),
  /** Leave it to the built-in garbage collector: syncgc does nothing. */
  BACKGROUND("Background");

  private final String value;

  Propagation(String value) {
    this.value = value;
  }

  public String value() {
    return value;
  }

  /** Whether an owner with this propagation carries the syncgc finalizer. */
  public boolean needsFinalizer() {
    return this != BACKGROUND;
  }

  /** Exact, case-sensitive match, as Kubernetes' own propagationPolicy values. */
  public static Optional<Propagation> parse(String value) {
    for (Propagation p : values()) {
      if (p.value.equals(value)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }
}
