package dev.syncgc.core.deletion;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.Propagation;
import java.util.Optional;

/** Whether an object that is not being deleted should carry the syncgc finalizer. */
public enum FinalizerChange {
  ADD,
  REMOVE,
  NONE;

  /**
   * @param propagation the object's effective propagation (annotation, else policy), empty if none
   * @param annotationInvalid the propagation annotation is present but invalid: keep what it has
   */
  public static FinalizerChange decide(
      ObjectMetadata object, Optional<Propagation> propagation, boolean annotationInvalid) {
    if (object.beingDeleted() || annotationInvalid) {
      return NONE;
    }
    if (object.annotation(Names.CASCADED_FROM) != null) {
      // put under synchronous deletion by an owner's cascade: the DELETE follows
      return NONE;
    }
    boolean wanted = propagation.map(Propagation::needsFinalizer).orElse(false);
    boolean has = object.hasFinalizer(Names.FINALIZER);
    if (wanted && !has) {
      return ADD;
    }
    return !wanted && has ? REMOVE : NONE;
  }
}
