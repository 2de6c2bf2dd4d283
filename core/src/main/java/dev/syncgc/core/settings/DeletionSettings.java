package dev.syncgc.core.settings;

import dev.syncgc.core.model.Names;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An object's deletion settings, read from its {@code syncgc.dev/} annotations. A missing or invalid
 * value is empty; invalid ones are listed in {@link #invalid()}. An invalid deletion wave counts as
 * 0 (SPEC), so it is present as 0 and no policy's wave replaces it.
 *
 * @param onTimeout what the deadline does to the owner; empty means {@link OnTimeout#RELEASE}
 * @param deletionWave the object's wave among its owner's dependents; empty means 0
 */
public record DeletionSettings(
    Optional<Propagation> propagation,
    Optional<Duration> timeout,
    Optional<Long> gracePeriodSeconds,
    Optional<OnTimeout> onTimeout,
    Optional<Integer> deletionWave,
    List<InvalidSetting> invalid) {

  public static final DeletionSettings NONE = new DeletionSettings(Optional.empty(), Optional.empty(),
      Optional.empty(), Optional.empty(), Optional.empty(), List.of());

  /** The settings a policy gives (no invalid values: an invalid policy is not used). */
  public static DeletionSettings of(Propagation propagation, Optional<Duration> timeout,
      Optional<Long> gracePeriodSeconds, Optional<OnTimeout> onTimeout) {
    return new DeletionSettings(Optional.of(propagation), timeout, gracePeriodSeconds, onTimeout,
        Optional.empty(), List.of());
  }

  /** The same settings with this deletion wave. */
  public DeletionSettings withDeletionWave(Optional<Integer> wave) {
    return new DeletionSettings(propagation, timeout, gracePeriodSeconds, onTimeout, wave, invalid);
  }

  public static DeletionSettings fromAnnotations(Map<String, String> annotations) {
    List<InvalidSetting> invalid = new ArrayList<>();
    Optional<Propagation> propagation = Optional.empty();
    String p = annotations.get(Names.PROPAGATION);
    if (p != null) {
      propagation = Propagation.parse(p);
      if (propagation.isEmpty()) {
        invalid.add(new InvalidSetting(Names.PROPAGATION, p,
            "must be one of Synchronous, Orphan, Background"));
      }
    }
    Optional<Duration> timeout = Optional.empty();
    String t = annotations.get(Names.TIMEOUT);
    if (t != null) {
      try {
        timeout = Optional.of(GoDuration.parse(t));
      } catch (IllegalArgumentException e) {
        invalid.add(new InvalidSetting(Names.TIMEOUT, t, e.getMessage()));
      }
    }
    Optional<Long> grace = Optional.empty();
    String g = annotations.get(Names.GRACE_PERIOD);
    if (g != null) {
      grace = parseGrace(g, invalid);
    }
    Optional<OnTimeout> onTimeout = Optional.empty();
    String o = annotations.get(Names.ON_TIMEOUT);
    if (o != null) {
      onTimeout = OnTimeout.parse(o);
      if (onTimeout.isEmpty()) {
        invalid.add(new InvalidSetting(Names.ON_TIMEOUT, o, "must be Release or Keep"));
      }
    }
    Optional<Integer> wave = Optional.empty();
    String w = annotations.get(Names.DELETION_WAVE);
    if (w != null) {
      wave = Optional.of(parseWave(w, invalid));
    }
    return new DeletionSettings(propagation, timeout, grace, onTimeout, wave, List.copyOf(invalid));
  }

  /** A whole number, negative allowed; anything else is reported and counts as 0. */
  private static int parseWave(String value, List<InvalidSetting> invalid) {
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      invalid.add(new InvalidSetting(Names.DELETION_WAVE, value, "must be a whole number; counts as 0"));
      return 0;
    }
  }

  /** The wave of the object these settings belong to: 0 unless set. */
  public int wave() {
    return deletionWave.orElse(0);
  }

  /** What the deadline does: {@link OnTimeout#RELEASE} unless set. */
  public OnTimeout onTimeoutOrDefault() {
    return onTimeout.orElse(OnTimeout.RELEASE);
  }

  private static Optional<Long> parseGrace(String value, List<InvalidSetting> invalid) {
    try {
      long seconds = Long.parseLong(value.trim());
      if (seconds >= 0) {
        return Optional.of(seconds);
      }
      invalid.add(new InvalidSetting(Names.GRACE_PERIOD, value, "must not be negative"));
    } catch (NumberFormatException e) {
      invalid.add(new InvalidSetting(Names.GRACE_PERIOD, value, "must be a whole number of seconds"));
    }
    return Optional.empty();
  }

  /** These settings, with what they leave empty taken from {@code fallback} (e.g. a policy). */
  public DeletionSettings orElse(DeletionSettings fallback) {
    return new DeletionSettings(
        propagation.or(fallback::propagation),
        timeout.or(fallback::timeout),
        gracePeriodSeconds.or(fallback::gracePeriodSeconds),
        onTimeout.or(fallback::onTimeout),
        deletionWave.or(fallback::deletionWave),
        invalid);
  }
}
