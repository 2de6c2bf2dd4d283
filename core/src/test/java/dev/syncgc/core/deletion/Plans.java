package dev.syncgc.core.deletion;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import dev.syncgc.core.settings.SettingsInForce;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * For tests of single decisions: a plan with the owner's settings given; every other object's read
 * from its annotations, an object under deletion with the syncgc finalizer and no propagation telling
 * otherwise cascading. The operator, preview and why pass every object's settings in force.
 */
public final class Plans {
  private Plans() {}

  /** {@code on-timeout: Release}, every dependent in wave 0. */
  public static List<Step> plan(DeletionPlanner planner, DependencyGraph graph, ObjectMetadata owner,
      Propagation propagation, Optional<Duration> timeout, Instant now, Failures lastFailure,
      List<Blocker> unverified) {
    return plan(planner, graph, owner, propagation, timeout, OnTimeout.RELEASE, now, lastFailure, unverified, d -> 0);
  }

  public static List<Step> plan(DeletionPlanner planner, DependencyGraph graph, ObjectMetadata owner,
      Propagation propagation, Optional<Duration> timeout, OnTimeout onTimeout, Instant now,
      Failures lastFailure, List<Blocker> unverified, ToIntFunction<ObjectMetadata> waveOf) {
    SettingsInForce settings = new SettingsInForce(DeletionSettings.NONE.with(Setting.PROPAGATION, propagation)
        .with(Setting.TIMEOUT, timeout).with(Setting.ON_TIMEOUT, onTimeout), false, DeletionSettings.NONE);
    return planner.plan(graph, owner, settings, now, lastFailure, unverified, o -> {
      SettingsInForce own = SettingsInForce.ofAnnotations(o);
      return new SettingsInForce(own.inForce().with(Setting.DELETION_WAVE, waveOf.applyAsInt(o))
          .with(Setting.PROPAGATION, own.propagation().or(() -> Optional.of(Propagation.SYNCHRONOUS))), false,
          own.own());
    });
  }

  /** Settings in force of an owner opted in with {@code Synchronous} and nothing else. */
  public static SettingsInForce synchronous() {
    return new SettingsInForce(DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS), false,
        DeletionSettings.NONE);
  }
}
