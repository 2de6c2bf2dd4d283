package dev.syncgc.core.settings;

/** A syncgc annotation whose value cannot be used, and why; reported as an InvalidAnnotation Event. */
public record InvalidSetting(String annotation, String value, String reason) {
  public String message() {
    return annotation + "=\"" + value + "\" is invalid: " + reason;
  }
}
