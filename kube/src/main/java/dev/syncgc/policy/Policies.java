package dev.syncgc.policy;

import dev.syncgc.core.policy.Policy;
import java.util.Collection;

/** The policies in force, as the policy reconciler changes them (the engine's {@link PolicyStore}). */
public interface Policies {
  void put(Policy policy);

  void remove(String name);

  /** Puts exactly these policies in force, removing every other. */
  void replaceAll(Collection<Policy> policies);

  long matchedBy(String name);
}
