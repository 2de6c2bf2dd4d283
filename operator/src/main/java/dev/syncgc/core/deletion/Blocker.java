package dev.syncgc.core.deletion;

import dev.syncgc.core.model.ObjectRef;

/** A dependent an owner still waits for, and why it is still there. */
public record Blocker(ObjectRef ref, String why) {
  @Override
  public String toString() {
    return ref + " (" + why + ")";
  }
}
