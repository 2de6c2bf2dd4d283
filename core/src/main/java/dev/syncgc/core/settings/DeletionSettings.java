package dev.syncgc.core.settings;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An object's deletion settings, by {@link Setting}, read from its {@code syncgc.dev/} annotations
 * (or given by a policy). A missing or invalid value is absent; invalid ones are listed in
 * {@link #invalid()}. An invalid deletion wave counts as 0 and an invalid keep as true (SPEC), so they
 * are present as such and no policy's value replaces them.
 *
 * @param values each setting's value, by setting (absent: not set)
 * @param invalid the values that could not be read, in the order of {@link Setting#ALL}
 */
public record DeletionSettings(Map<Setting<?>, Object> values, List<InvalidSetting> invalid) {

  public static final DeletionSettings NONE = new DeletionSettings(Map.of(), List.of());

  public DeletionSettings {
    values = Map.copyOf(values);
    invalid = List.copyOf(invalid);
  }

  /** The settings read from these annotations, every bad value listed. */
  public static DeletionSettings fromAnnotations(Map<String, String> annotations) {
    Map<Setting<?>, Object> values = new HashMap<>();
    List<InvalidSetting> invalid = new ArrayList<>();
    for (Setting<?> setting : Setting.ALL) {
      String text = annotations.get(setting.annotation());
      if (text != null) {
        Setting.Read<?> read = setting.read(text);
        read.value().ifPresent(v -> values.put(setting, v));
        if (read.problem() != null) {
          invalid.add(new InvalidSetting(setting.annotation(), text, read.problem()));
        }
      }
    }
    return new DeletionSettings(values, invalid);
  }

  /** The value of a setting, if set. */
  public <T> Optional<T> get(Setting<T> setting) {
    @SuppressWarnings("unchecked") // put only by with(), which takes a T for a Setting<T>
    T value = (T) values.get(setting);
    return Optional.ofNullable(value);
  }

  /**
   * The same settings with this one set to {@code value} (absent: unset); these settings themselves
   * when that changes nothing (the usual case where the settings in force are worked out for every
   * object a plan looks at: nothing inherited, the propagation as read).
   */
  public <T> DeletionSettings with(Setting<T> setting, Optional<T> value) {
    if (Objects.equals(values.get(setting), value.orElse(null))) {
      return this;
    }
    Map<Setting<?>, Object> changed = new HashMap<>(values);
    value.ifPresentOrElse(v -> changed.put(setting, v), () -> changed.remove(setting));
    return new DeletionSettings(changed, invalid);
  }

  public <T> DeletionSettings with(Setting<T> setting, T value) {
    return with(setting, Optional.of(value));
  }

  /** These settings, with what they leave absent taken from {@code fallback} (e.g. a policy). */
  public DeletionSettings orElse(DeletionSettings fallback) {
    Map<Setting<?>, Object> merged = new HashMap<>(fallback.values);
    merged.putAll(values);
    return new DeletionSettings(merged, invalid);
  }

  public Optional<Propagation> propagation() {
    return get(Setting.PROPAGATION);
  }

  public Optional<Duration> timeout() {
    return get(Setting.TIMEOUT);
  }

  public Optional<Long> gracePeriodSeconds() {
    return get(Setting.GRACE_PERIOD);
  }

  /** What the deadline does to the owner; absent means {@link OnTimeout#RELEASE}. */
  public Optional<OnTimeout> onTimeout() {
    return get(Setting.ON_TIMEOUT);
  }

  /** The namespaces whose users hold a cluster-scoped object: none unless set. */
  public UsersFrom usersFrom() {
    return get(Setting.USERS_FROM).orElse(UsersFrom.NONE);
  }

  /** The object's wave among its owner's dependents: 0 unless set. */
  public int wave() {
    return get(Setting.DELETION_WAVE).orElse(0);
  }

  /** Whether the object is kept out of every cascade through it (SPEC "Keep one dependent"): false unless set. */
  public boolean keep() {
    return get(Setting.KEEP).orElse(false);
  }
}
