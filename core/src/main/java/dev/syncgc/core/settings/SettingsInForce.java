package dev.syncgc.core.settings;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The settings in force for one object, worked out in one place for the operator, {@code kubectl
 * syncgc preview} and {@code why} alike (SPEC "Opting in", "Which propagation decides").
 *
 * <p>{@link #propagation()} is, for an object not being deleted, what it is opted in with now (empty
 * while its propagation annotation is invalid: the last valid setting stays); for an object being
 * deleted, what decides its deletion: the propagation recorded on it while it was alive
 * ({@link Names#LAST_VALID_PROPAGATION}), which a later change may only make safer (an
 * {@code Orphan} owner stays {@code Orphan}; a {@code Synchronous} one may be handed over to
 * {@code Background} or {@code Orphan}); with nothing recorded, its settings now; for a dependent a
 * cascade finalized, {@code Synchronous}. Empty when nothing tells: never guess a mode that deletes.
 *
 * <p>A dependent under a cascade follows its cascading owner's {@code on-timeout} and grace period
 * as they are now (switching the owner to {@code Release} reaches it) unless it sets its own. Once
 * that owner is gone, nothing is kept waiting for the dependent: {@code Release}; its grace period is
 * the one the cascade recorded on it ({@link Names#INHERITED_GRACE_PERIOD}).
 *
 * <p>An invalid {@code timeout}, {@code on-timeout} or {@code grace-period-seconds} keeps the last valid
 * value recorded on the object while it was alive ({@link LastValid}), above a policy's and an
 * inherited one, as the annotation it stands for.
 *
 * <p>The settings in force are held by {@link Setting}, as {@link DeletionSettings}: a setting the
 * table says is inherited is taken from the cascading owner here, for every such setting at once.
 *
 * @param inForce each setting in force (the propagation: the deciding one)
 * @param propagationInvalid the propagation annotation is present but invalid
 * @param own the object's own settings with the deciding policy's beneath (invalid values listed)
 */
public record SettingsInForce(DeletionSettings inForce, boolean propagationInvalid, DeletionSettings own) {

  /** How deep a chain of cascades is followed for inherited settings (a ring of cascades ends). */
  private static final int MAX_CASCADE_DEPTH = 64;

  /**
   * @param settingsOf an object's annotations with the deciding policy's settings beneath
   * @param lookup an object by uid, null if not known
   */
  public static Function<ObjectMetadata, SettingsInForce> resolver(
      Function<ObjectMetadata, DeletionSettings> settingsOf, Function<String, ObjectMetadata> lookup) {
    return object -> resolve(object, settingsOf, lookup, 0);
  }

  /**
   * Whether an object's deletion deletes its dependents ({@link #cascades()}), as {@link #resolver} tells it
   * but without the chain of cascading owners above the object: the propagation is never inherited, only the
   * settings it does not decide are. For a question asked before every call a plan sends.
   *
   * @param settingsOf an object's annotations with the deciding policy's settings beneath
   */
  public static Predicate<ObjectMetadata> cascades(Function<ObjectMetadata, DeletionSettings> settingsOf) {
    return object -> of(object, settingsOf.apply(object), Optional.empty()).cascades();
  }

  private static SettingsInForce resolve(ObjectMetadata object, Function<ObjectMetadata, DeletionSettings> settingsOf,
      Function<String, ObjectMetadata> lookup, int depth) {
    ObjectMetadata cascading = depth < MAX_CASCADE_DEPTH ? cascadingOwner(object, lookup) : null;
    Optional<SettingsInForce> from = cascading == null ? Optional.empty()
        : Optional.of(resolve(cascading, settingsOf, lookup, depth + 1));
    return of(object, settingsOf.apply(object), from);
  }

  /**
   * @param settings the object's annotations with the deciding policy's settings beneath
   * @param cascadingOwner the settings in force of the owner whose cascade is deleting the object,
   *     while that owner exists, is still its owner and is being deleted
   */
  public static SettingsInForce of(ObjectMetadata object, DeletionSettings settings,
      Optional<SettingsInForce> cascadingOwner) {
    boolean invalid = settings.invalid().stream().anyMatch(i -> i.annotation().equals(Names.PROPAGATION));
    Optional<Propagation> current = invalid ? Optional.empty() : settings.propagation();
    Optional<Propagation> propagation = object.beingDeleted() ? deciding(object, current) : current;
    DeletionSettings inForce = LastValid.restore(object, settings, settings.with(Setting.PROPAGATION, propagation));
    for (Setting<?> setting : Setting.ALL) {
      if (setting.inherited() && cascadingOwner.isPresent()) {
        inForce = inherit(inForce, setting, cascadingOwner.get().inForce());
      }
    }
    if (cascadingOwner.isEmpty() && object.annotation(Names.CASCADED_FROM) != null) {
      // the cascading owner is gone: the grace period its cascade recorded on the object
      inForce = inForce.with(Setting.GRACE_PERIOD, settings.gracePeriodSeconds()
          .or(() -> parseLong(object.annotation(Names.INHERITED_GRACE_PERIOD))));
    }
    return new SettingsInForce(inForce, invalid, settings);
  }

  /** {@code setting} from {@code from} unless {@code settings} has it. */
  private static <T> DeletionSettings inherit(DeletionSettings settings, Setting<T> setting, DeletionSettings from) {
    return settings.with(setting, settings.get(setting).or(() -> from.get(setting)));
  }

  /** The settings in force from the object's annotations alone (no policy, no cascading owner). */
  public static SettingsInForce ofAnnotations(ObjectMetadata object) {
    return of(object, DeletionSettings.fromAnnotations(object.annotations()), Optional.empty());
  }

  private static Optional<Propagation> deciding(ObjectMetadata object, Optional<Propagation> current) {
    Optional<Propagation> recorded = Propagation.parse(object.annotation(Names.LAST_VALID_PROPAGATION));
    if (recorded.isPresent()) {
      return recorded.get() == Propagation.ORPHAN ? recorded
          : current.filter(p -> p != Propagation.SYNCHRONOUS).or(() -> recorded);
    }
    if (current.isPresent()) {
      return current;
    }
    return object.annotation(Names.CASCADED_FROM) != null ? Optional.of(Propagation.SYNCHRONOUS) : Optional.empty();
  }

  /**
   * Whether the owner whose cascade finalized the object ({@link Names#CASCADED_FROM}) is still its
   * owner and being deleted: the cascade's DELETE follows. Otherwise the object survived the cascade.
   */
  public static boolean cascadeActive(ObjectMetadata object, Function<String, ObjectMetadata> lookup) {
    return cascadingOwner(object, lookup) != null;
  }

  /** The owner named by {@link Names#CASCADED_FROM}, while it is still an owner and being deleted. */
  private static ObjectMetadata cascadingOwner(ObjectMetadata object, Function<String, ObjectMetadata> lookup) {
    String uid = object.annotation(Names.CASCADED_FROM);
    if (uid == null || object.owners().stream().noneMatch(l -> l.uid().equals(uid))) {
      return null;
    }
    ObjectMetadata owner = lookup.apply(uid);
    return owner != null && owner.beingDeleted() ? owner : null;
  }

  private static Optional<Long> parseLong(String value) {
    try {
      return value == null ? Optional.empty() : Optional.of(Long.parseLong(value.trim())).filter(v -> v >= 0);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** The propagation in force; empty when nothing tells (never guess a mode that deletes). */
  public Optional<Propagation> propagation() {
    return inForce.propagation();
  }

  public Optional<Duration> timeout() {
    return inForce.timeout();
  }

  public Optional<Long> gracePeriodSeconds() {
    return inForce.gracePeriodSeconds();
  }

  /** What the deadline does: {@link OnTimeout#RELEASE} unless set (or inherited). */
  public OnTimeout onTimeout() {
    return inForce.onTimeout().orElse(OnTimeout.RELEASE);
  }

  /** The namespaces whose users hold the object if it is cluster-scoped (SPEC "In use"). */
  public UsersFrom usersFrom() {
    return inForce.usersFrom();
  }

  /** The object's wave among its owner's dependents. */
  public int wave() {
    return inForce.wave();
  }

  /**
   * Whether the object survives every syncgc cascade through it, only its reference to the owner being
   * deleted removed (SPEC "Keep one dependent"): its annotation (an invalid value counts as true), else
   * the deciding policy's {@code keep}; never inherited.
   */
  public boolean keep() {
    return inForce.keep();
  }

  /** The propagation in force, {@link Propagation#BACKGROUND} when nothing tells. */
  public Propagation propagationOrBackground() {
    return propagation().orElse(Propagation.BACKGROUND);
  }

  /** Whether a deletion with these settings deletes dependents: {@code Synchronous} in force. */
  public boolean cascades() {
    return propagation().filter(p -> p == Propagation.SYNCHRONOUS).isPresent();
  }
}
