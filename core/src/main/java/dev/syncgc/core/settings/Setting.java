package dev.syncgc.core.settings;

import dev.syncgc.core.model.Names;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One {@code syncgc.dev/} annotation that sets how an object's deletion goes, described once: its
 * name, how its value is read (and in what words a bad one is reported), the GarbageCollectionPolicy
 * field that may give it, and whether a dependent under a cascade takes its cascading owner's. {@link
 * #ALL} is the table: reading annotations ({@link DeletionSettings#fromAnnotations}), filling from a
 * policy ({@link DeletionSettings#orElse}), validating a policy, and working out the settings in
 * force ({@link SettingsInForce}) all go through it. A new setting is one entry here, its name in
 * {@link Names}, and the code that acts on it.
 *
 * @param <T> the type of its value
 */
public final class Setting<T> {

  /** A value as read: the value (empty if none could be read) and, for a bad value, why. */
  public record Read<T>(Optional<T> value, String problem) {
    public static <T> Read<T> ok(T value) {
      return new Read<>(Optional.of(value), null);
    }

    public static <T> Read<T> bad(String problem) {
      return new Read<>(Optional.empty(), problem);
    }
  }

  private static final Pattern ASCII_INTEGER = Pattern.compile("[+-]?[0-9]+");

  public static final Setting<Propagation> PROPAGATION = new Setting<>(Names.PROPAGATION, "propagation", false, null,
      v -> Propagation.parse(v).map(Read::ok)
          .orElseGet(() -> Read.bad("must be one of Synchronous, Orphan, Background")));

  public static final Setting<Duration> TIMEOUT = new Setting<>(Names.TIMEOUT, "timeout", false,
      Names.LAST_VALID_TIMEOUT, v -> {
    try {
      return Read.ok(GoDuration.parse(v));
    } catch (IllegalArgumentException e) {
      return Read.bad(e.getMessage());
    }
  });

  /** Taken from the cascading owner while it is there (then from what the cascade recorded on the dependent). */
  public static final Setting<Long> GRACE_PERIOD = new Setting<>(Names.GRACE_PERIOD, "gracePeriodSeconds", true,
      Names.LAST_VALID_GRACE_PERIOD, v -> {
    try {
      long seconds = Long.parseLong(asciiInteger(v));
      return seconds >= 0 ? Read.ok(seconds) : Read.bad("must not be negative");
    } catch (NumberFormatException e) {
      return Read.bad("must be a whole number of seconds");
    }
  });

  /** Taken from the cascading owner while it is there; {@link OnTimeout#RELEASE} when nothing sets it. */
  public static final Setting<OnTimeout> ON_TIMEOUT = new Setting<>(Names.ON_TIMEOUT, "onTimeout", true,
      Names.LAST_VALID_ON_TIMEOUT, v -> OnTimeout.parse(v).map(Read::ok).orElseGet(() -> Read.bad("must be Release or Keep")));

  /** SPEC: an invalid wave counts as 0, so it is read as 0 (and no policy's wave replaces it). */
  public static final Setting<Integer> DELETION_WAVE = new Setting<>(Names.DELETION_WAVE, null, false, null, v -> {
    try {
      return Read.ok(Integer.parseInt(asciiInteger(v)));
    } catch (NumberFormatException e) {
      return new Read<>(Optional.of(0), "must be a whole number; counts as 0");
    }
  });

  /**
   * On a cluster-scoped object: the namespaces whose users hold it (SPEC "In use"); none when nothing
   * sets it. Read on a namespaced object too, where it changes nothing.
   */
  public static final Setting<UsersFrom> USERS_FROM = new Setting<>(Names.USERS_FROM, "usersFrom", false,
      Names.LAST_VALID_USERS_FROM, UsersFrom::read);

  /**
   * SPEC "Keep one dependent": {@code true} or {@code false}; an invalid value counts as {@code true} (kept),
   * so it is read as true (and no policy's keep replaces it; nothing recorded is needed).
   */
  public static final Setting<Boolean> KEEP = new Setting<>(Names.KEEP, "keep", false, null, v -> switch (v) {
    case "true" -> Read.ok(true);
    case "false" -> Read.ok(false);
    default -> new Read<>(Optional.of(true), "must be true or false; counts as true (kept)");
  });

  /** The table, in the order invalid values are reported. */
  public static final List<Setting<?>> ALL = List.of(PROPAGATION, TIMEOUT, GRACE_PERIOD, ON_TIMEOUT, DELETION_WAVE,
      USERS_FROM, KEEP);

  /**
   * A whole number as the numeric annotations take it: surrounding spaces and control characters
   * ({@link String#trim()}), an optional sign, ASCII digits only (as Kubernetes' own integers; Java's
   * parsers alone would also take other scripts' digits, which the chart's admission policy could
   * not check the same way).
   *
   * @throws NumberFormatException if it is not one
   */
  private static String asciiInteger(String value) {
    String trimmed = value.trim();
    if (!ASCII_INTEGER.matcher(trimmed).matches()) {
      throw new NumberFormatException(value);
    }
    return trimmed;
  }

  private final String annotation;
  private final String policyField;
  private final boolean inherited;
  private final String recorded;
  private final Function<String, Read<T>> reader;

  private Setting(String annotation, String policyField, boolean inherited, String recorded,
      Function<String, Read<T>> reader) {
    this.annotation = annotation;
    this.policyField = policyField;
    this.inherited = inherited;
    this.recorded = recorded;
    this.reader = reader;
  }

  /** The annotation that sets it. */
  public String annotation() {
    return annotation;
  }

  /** The field of a GarbageCollectionPolicy's spec that may give it; null when a policy cannot. */
  public String policyField() {
    return policyField;
  }

  /** Whether a dependent under a cascade that does not set it takes its cascading owner's. */
  public boolean inherited() {
    return inherited;
  }

  /**
   * The annotation syncgc records the last valid value of this one in, on an opted-in object while it
   * is alive ({@link LastValid}); null when none is (the propagation records the one in force, with
   * rules of its own: {@link SettingsInForce}; an invalid deletion wave counts as 0).
   */
  public String recorded() {
    return recorded;
  }

  /** Reads an annotation's value. */
  public Read<T> read(String value) {
    return reader.apply(value);
  }

  @Override
  public String toString() {
    return annotation;
  }
}
