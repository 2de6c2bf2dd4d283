package dev.syncgc.core.usage;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The annotation {@code syncgc.dev/uses} of a user, read: the objects it names, as kubectl names
 * them ({@code KIND[.GROUP]/NAME}, comma-separated), and the entries that name nothing (SPEC "In use").
 *
 * @param named the well-formed entries, in order
 * @param errors why each malformed entry names nothing
 */
public record Uses(List<Named> named, List<String> errors) {
  /** One entry: a kind as a user names it ({@link KindNames}) and an object's name. */
  public record Named(String kind, String name) {
    @Override
    public String toString() {
      return kind + "/" + name;
    }
  }

  public static final Uses NONE = new Uses(List.of(), List.of());
  /** The most objects one annotation names (SPEC "In use"): a longer one names nothing. */
  public static final int MAX_NAMED = 100;
  /** The longest annotation, in bytes of UTF-8 (SPEC "In use"): a longer one names nothing. */
  public static final int MAX_BYTES = 16 * 1024;
  private static final Pattern KIND = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?");
  private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9.-]*[a-z0-9])?");

  public Uses {
    named = List.copyOf(named);
    errors = List.copyOf(errors);
  }

  /** Reads the annotation's value; null (no annotation) names nothing. */
  public static Uses parse(String value) {
    if (value == null || value.isBlank()) {
      return NONE;
    }
    String tooMuch = tooMuch(value);
    if (tooMuch != null) {
      return new Uses(List.of(), List.of(tooMuch));
    }
    List<Named> named = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    for (String raw : value.split(",", -1)) {
      String entry = raw.strip();
      if (entry.isEmpty()) {
        continue; // "a, b," as well as "a, b"
      }
      String[] parts = entry.split("/", -1);
      if (parts.length == 3) {
        errors.add("\"" + entry + "\" names another namespace: a used object is in the user's own namespace"
            + " (or cluster-scoped), named KIND[.GROUP]/NAME");
      } else if (parts.length != 2 || !KIND.matcher(parts[0]).matches() || parts[1].length() > 253
          || !NAME.matcher(parts[1]).matches()) {
        errors.add("\"" + entry + "\" is not KIND[.GROUP]/NAME (e.g. secret/db, clusters.example.com/prod)");
      } else {
        named.add(new Named(parts[0], parts[1]));
      }
    }
    return new Uses(named, errors);
  }

  /**
   * Why the annotation is too long to be read ({@link #MAX_BYTES}, {@link #MAX_NAMED}), null if it is
   * not: found without splitting it, so that a long one costs nothing but its own text.
   */
  private static String tooMuch(String value) {
    long bytes = value.length() > MAX_BYTES ? value.length() : utf8Bytes(value);
    if (bytes > MAX_BYTES) {
      return "the annotation is " + (value.length() > MAX_BYTES ? "over " + MAX_BYTES : bytes)
          + " bytes long: it names at most " + MAX_NAMED + " objects in at most 16 KiB (" + MAX_BYTES
          + " bytes); name fewer, or opt in an object that owns them and name that";
    }
    int entries = 0;
    for (int start = 0; start <= value.length(); ) {
      int end = value.indexOf(',', start);
      end = end < 0 ? value.length() : end;
      if (!blank(value, start, end)) {
        entries++;
      }
      start = end + 1;
    }
    return entries <= MAX_NAMED ? null : "the annotation names " + entries + " objects: at most " + MAX_NAMED
        + " objects in at most 16 KiB; name fewer, or opt in an object that owns them and name that";
  }

  private static long utf8Bytes(String value) {
    long bytes = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3; // a surrogate pair: 4
    }
    return bytes;
  }

  private static boolean blank(String value, int start, int end) {
    for (int i = start; i < end; i++) {
      if (!Character.isWhitespace(value.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  /** The names of the objects named, for the graph's index of users by the name they use. */
  public List<String> names() {
    return named.stream().map(Named::name).distinct().toList();
  }
}
