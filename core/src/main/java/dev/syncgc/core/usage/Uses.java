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

  /** The names of the objects named, for the graph's index of users by the name they use. */
  public List<String> names() {
    return named.stream().map(Named::name).distinct().toList();
  }
}
