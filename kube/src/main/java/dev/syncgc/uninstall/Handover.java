package dev.syncgc.uninstall;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;

/**
 * What the release does with an object under deletion, besides removing syncgc's finalizer: from its
 * propagation in force, so that what the built-in collector then does is what syncgc would have
 * done, never more.
 */
enum Handover {
  /** Nothing: its deletion goes on in the background, or Kubernetes' orphan finalizer decides already. */
  NONE(null),
  /** DELETE with {@code propagationPolicy: Orphan}: the API server orphans every dependent. */
  ORPHAN("Orphan"),
  /** DELETE with {@code propagationPolicy: Foreground}: the dependents go first. */
  FOREGROUND("Foreground");

  private final String propagationPolicy;

  Handover(String propagationPolicy) {
    this.propagationPolicy = propagationPolicy;
  }

  static Handover of(ObjectMetadata object, SettingsInForce settings) {
    if (object.hasFinalizer(Names.ORPHAN_FINALIZER)) {
      return NONE; // kubectl delete --cascade=orphan: the request wins (SPEC step 1)
    }
    return switch (settings.propagation().orElse(Propagation.BACKGROUND)) {
      case ORPHAN -> ORPHAN;
      case SYNCHRONOUS -> FOREGROUND;
      case BACKGROUND -> NONE; // also when nothing tells: the built-in collector's default
    };
  }

  /** The DELETE's propagationPolicy; null for {@link #NONE}, which sends none. */
  String propagationPolicy() {
    return propagationPolicy;
  }

  /** What happened to the object, for the log. */
  String describe(ObjectMetadata object) {
    return switch (this) {
      case ORPHAN -> "handed over to the API server's orphaning";
      case FOREGROUND -> "handed over to foreground deletion";
      case NONE -> object.hasFinalizer(Names.ORPHAN_FINALIZER) ? "released to the orphan finalizer"
          : "released to background deletion";
    };
  }
}
