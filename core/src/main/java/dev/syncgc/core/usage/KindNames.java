package dev.syncgc.core.usage;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Kinds as a user names them, the way kubectl accepts them: kind, singular or plural resource name,
 * or a short name, in any case, optionally followed by {@code .GROUP} ({@code secret},
 * {@code Secrets}, {@code clusters.example.com}). One rule for the operator (the {@code syncgc.dev/uses}
 * annotation) and {@code kubectl syncgc} (its KIND/NAME arguments).
 */
public final class KindNames {

  /** A kind the API server serves. */
  public record NamedKind(String group, String kind, String plural, List<String> shortNames, boolean namespaced) {
    public NamedKind {
      shortNames = List.copyOf(shortNames);
    }

    /** group/Kind, the identity of a kind across its versions ("/Secret" for the core group). */
    public String groupKind() {
      return group + "/" + kind;
    }
  }

  /** The kind a name stands for, or (kind null) why it stands for none. */
  public record Resolution(NamedKind kind, String error) {
    public boolean found() {
      return kind != null;
    }
  }

  private KindNames() {}

  public static Resolution resolve(Collection<NamedKind> kinds, String name) {
    String n = name.toLowerCase(Locale.ROOT);
    List<NamedKind> found = new ArrayList<>();
    for (NamedKind k : kinds) {
      List<String> names = new ArrayList<>(List.of(k.kind().toLowerCase(Locale.ROOT), k.plural()));
      names.addAll(k.shortNames());
      for (String candidate : names) {
        if (n.equals(candidate) || (!k.group().isEmpty() && n.equals(candidate + "." + k.group()))) {
          found.add(k);
          break;
        }
      }
    }
    if (found.isEmpty()) {
      return new Resolution(null, "the server has no kind \"" + name + "\" (see kubectl api-resources)");
    }
    // as kubectl: the core group wins over others of the same name
    Optional<NamedKind> core = found.stream().filter(k -> k.group().isEmpty()).findFirst();
    if (core.isPresent() || found.size() == 1) {
      return new Resolution(core.orElse(found.get(0)), null);
    }
    // never guess between two groups: the object found (or not) would be of the other kind
    return new Resolution(null, "kind \"" + name + "\" is served by more than one group: "
        + found.stream().map(k -> k.plural() + "." + k.group()).collect(Collectors.joining(", "))
        + "; name it with its group, e.g. " + n + "." + found.get(0).group());
  }
}
