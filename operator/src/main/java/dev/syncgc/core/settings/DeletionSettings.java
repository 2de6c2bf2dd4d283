package dev.syncgc.core.settings;

import dev.syncgc.core.model.Names;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An object's deletion settings, read from its {@code syncgc.dev/} annotations. A missing or invalid
 * value is empty; invalid ones are listed in {@link #invalid()}.
 */
public record DeletionSettings(
    Optional<Propagation> propagation,
    Optional<Duration> timeout,
    Optional<Long> gracePeriodSeconds,
    List<InvalidSetting> invalid) {

  public static final DeletionSettings NONE =
      new DeletionSettings(Optional.empty(), Optional.empty(), Optional.empty(), List.of());

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
    return new DeletionSettings(propagation, timeout, grace, List.copyOf(invalid));
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
        invalid);
  }
}
