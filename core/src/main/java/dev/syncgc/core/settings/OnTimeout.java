package dev.syncgc.core.settings;

import java.util.Optional;

/** The values of the {@code syncgc.dev/on-timeout} annotation: what a passed deadline does. */
public enum OnTimeout {
  /** Remove the finalizer anyway: the deadlock is broken, the rest goes on in the background. */
  RELEASE("Release"),
  /** Keep the owner marked as deleted until its dependents are gone; report the timeout once. */
  KEEP("Keep");

  private final String value;

  OnTimeout(String value) {
    this.value = value;
  }

  public String value() {
    return value;
  }

  /** Exact, case-sensitive match, as the propagation values. */
  public static Optional<OnTimeout> parse(String value) {
    for (OnTimeout o : values()) {
      if (o.value.equals(value)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }
}
