package dev.syncgc.core.settings;

import dev.syncgc.core.model.ObjectMetadata;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * SPEC "Opting in" 2: an invalid value keeps the last valid setting. The settings with a {@link
 * Setting#recorded() record} have their annotation's last valid text written beside syncgc's finalizer
 * while the object is alive ({@link #changes}); while the annotation is invalid, the record is in
 * force instead ({@link #restore}), beneath the annotation it stands for and above a policy. A
 * removed annotation removes its record: a removal is no typo.
 */
public final class LastValid {
  /** The settings recorded, in the order of {@link Setting#ALL}. */
  private static final List<Setting<?>> RECORDED = Setting.ALL.stream().filter(s -> s.recorded() != null).toList();

  private LastValid() {}

  /**
   * What to write on an opted-in object that is alive so that its records match its annotations: a
   * record for each valid annotation whose text it does not hold yet, null (removed, in a merge patch)
   * for each record whose annotation is gone. An invalid annotation leaves its record. Empty when the
   * records are up to date.
   */
  public static Map<String, String> changes(ObjectMetadata object) {
    Map<String, String> changes = new HashMap<>();
    for (Setting<?> setting : RECORDED) {
      String text = object.annotation(setting.annotation());
      String record = object.annotation(setting.recorded());
      if (text == null) {
        if (record != null) {
          changes.put(setting.recorded(), null);
        }
      } else if (setting.read(text).problem() == null && !text.equals(record)) {
        changes.put(setting.recorded(), text);
      }
    }
    return changes;
  }

  /** The annotations the records are kept in, removed with the finalizer when the object opts out. */
  public static List<String> annotations() {
    return RECORDED.stream().map(Setting::recorded).toList();
  }

  /** The valid value recorded for the setting of this annotation, as written; empty if none. */
  public static Optional<String> recorded(ObjectMetadata object, String annotation) {
    for (Setting<?> setting : RECORDED) {
      if (setting.annotation().equals(annotation)) {
        return Optional.ofNullable(object.annotation(setting.recorded()))
            .filter(r -> setting.read(r).problem() == null);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code settings} with each setting whose own annotation is invalid ({@code own}) taken from its
   * record, when the object has a valid one.
   */
  static DeletionSettings restore(ObjectMetadata object, DeletionSettings own, DeletionSettings settings) {
    for (InvalidSetting invalid : own.invalid()) {
      for (Setting<?> setting : RECORDED) {
        if (setting.annotation().equals(invalid.annotation())) {
          settings = fromRecord(object, setting, settings);
        }
      }
    }
    return settings;
  }

  private static <T> DeletionSettings fromRecord(ObjectMetadata object, Setting<T> setting, DeletionSettings settings) {
    String record = object.annotation(setting.recorded());
    Optional<T> value = record == null ? Optional.empty() : setting.read(record).value();
    return value.isPresent() ? settings.with(setting, value) : settings;
  }
}
