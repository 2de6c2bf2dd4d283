package dev.syncgc.core.graph;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.function.Predicate;

/**
 * What an owner being deleted does with its dependents, for the rules that ask it (who keeps a
 * dependent, who will go): {@code cascades} tells whether an object's own deletion, once it is being
 * deleted, deletes its dependents (its propagation in force is {@code Synchronous}).
 */
public final class DeletingOwner {
  private DeletingOwner() {}

  /**
   * Whether an owner being deleted deletes its dependents: foreground deletion (the built-in
   * collector's), or syncgc's own cascade ({@link #cascadesNow}).
   */
  public static boolean deletesDependents(ObjectMetadata owner, Predicate<ObjectMetadata> cascades) {
    return owner.hasFinalizer(Names.FOREGROUND_FINALIZER) || cascadesNow(owner, cascades);
  }

  /**
   * A syncgc deletion that deletes dependents: Synchronous in force, no orphan request, and syncgc's
   * finalizer on it or its deletion started (a deadline recorded: one released at a {@code Release}
   * deadline still has its remaining dependents deleted, SPEC "Cycles and timeouts").
   */
  public static boolean cascadesNow(ObjectMetadata owner, Predicate<ObjectMetadata> cascades) {
    return (owner.hasFinalizer(Names.FINALIZER) || owner.annotation(Names.DEADLINE) != null)
        && !owner.hasFinalizer(Names.ORPHAN_FINALIZER) && cascades.test(owner);
  }
}
