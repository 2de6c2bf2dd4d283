package dev.syncgc.core.deletion;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.LastValid;
import dev.syncgc.core.settings.Propagation;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What to change on an object that is not being deleted: whether it should carry the syncgc
 * finalizer, and whether the propagation recorded beside it ({@link Names#LAST_VALID_PROPAGATION})
 * or the last valid settings ({@link LastValid}) are out of date.
 */
public enum FinalizerChange {
  /** Add the finalizer, recording the propagation in force. */
  ADD,
  /** Remove the finalizer and the recorded propagation: opted out. */
  REMOVE,
  /** Keep the finalizer; record the propagation in force or the last valid settings, which changed. */
  RECORD,
  NONE;

  /**
   * @param propagation the object's effective propagation (annotation, else policy), empty if none
   * @param annotationInvalid the propagation annotation is present but invalid: keep what it has
   * @param cascadeActive the owner named by {@link Names#CASCADED_FROM} is still its owner and being
   *     deleted: the cascade's DELETE follows. Otherwise the object survived a cascade (another owner
   *     adopted it, the DELETE was refused) and what the cascade wrote on it must go.
   */
  public static FinalizerChange decide(ObjectMetadata object, Optional<Propagation> propagation,
      boolean annotationInvalid, boolean cascadeActive) {
    boolean cascaded = object.annotation(Names.CASCADED_FROM) != null;
    if (object.beingDeleted() || (cascaded && cascadeActive)) {
      return NONE;
    }
    boolean has = object.hasFinalizer(Names.FINALIZER);
    if (annotationInvalid) { // keep the setting; drop the stale cascade marks, record the other settings
      return has && (cascaded || !LastValid.changes(object).isEmpty()) ? RECORD : NONE;
    }
    boolean wanted = propagation.map(Propagation::needsFinalizer).orElse(false);
    if (wanted && !has) {
      return ADD;
    }
    if (!wanted) {
      return has ? REMOVE : NONE;
    }
    boolean recorded = propagation.get().value().equals(object.annotation(Names.LAST_VALID_PROPAGATION))
        && LastValid.changes(object).isEmpty();
    return recorded && !cascaded ? NONE : RECORD;
  }

  /**
   * What the change writes beside the finalizer, as a merge patch of annotations (a null removes a
   * key): for {@code ADD} and {@code RECORD} the propagation in force and the last valid settings, and
   * the end of what a cascade the object survived wrote on it ({@link Step.Cascade#MARKS}); for
   * {@code REMOVE} every annotation of syncgc's own that opting in wrote.
   */
  public Map<String, String> annotations(ObjectMetadata object, Optional<Propagation> propagation) {
    Map<String, String> annotations = new LinkedHashMap<>();
    if (this == NONE) {
      return annotations;
    }
    if (this == REMOVE || object.annotation(Names.CASCADED_FROM) != null) {
      Step.Cascade.MARKS.forEach(key -> annotations.put(key, null));
    }
    if (this == REMOVE) {
      annotations.put(Names.LAST_VALID_PROPAGATION, null);
      LastValid.annotations().forEach(key -> annotations.put(key, null));
      return annotations;
    }
    propagation.filter(Propagation::needsFinalizer)
        .ifPresent(p -> annotations.put(Names.LAST_VALID_PROPAGATION, p.value()));
    annotations.putAll(LastValid.changes(object));
    return annotations;
  }
}
