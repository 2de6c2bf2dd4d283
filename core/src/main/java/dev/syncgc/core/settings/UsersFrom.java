package dev.syncgc.core.settings;

import dev.syncgc.core.model.ObjectRef;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * SPEC "In use", holding is bounded: the namespaces whose users hold a cluster-scoped object (its
 * annotation {@code syncgc.dev/users-from}, or its policy's {@code usersFrom}). Cluster-scoped users
 * always count; with nothing set, no namespaced user does, so that no tenant holds what is not theirs.
 *
 * @param any every namespace ({@code *})
 * @param namespaces the namespaces allowed, unless {@code any}
 */
public record UsersFrom(boolean any, Set<String> namespaces) {
  /** Nothing set: cluster-scoped users only. */
  public static final UsersFrom NONE = new UsersFrom(false, Set.of());
  /** The longest value read, as for {@code syncgc.dev/uses}: a longer one is not split. */
  static final int MAX_LENGTH = 16 * 1024;
  private static final Pattern NAMESPACE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  public UsersFrom {
    namespaces = Set.copyOf(namespaces);
  }

  /** Whether {@code user} holds the object: cluster-scoped, or in a namespace allowed. */
  public boolean allows(ObjectRef user) {
    return user.namespace() == null || any || namespaces.contains(user.namespace());
  }

  /** Reads the annotation's value: namespace names, comma-separated, or {@code *} alone. */
  static Setting.Read<UsersFrom> read(String value) {
    if (value.length() > MAX_LENGTH) {
      return Setting.Read.bad("is over 16 KiB long; allow every namespace with *");
    }
    Set<String> namespaces = new TreeSet<>();
    boolean any = false;
    for (String raw : value.split(",", -1)) {
      String entry = raw.strip();
      if (entry.equals("*")) {
        any = true;
      } else if (!entry.isEmpty()) {
        if (!NAMESPACE.matcher(entry).matches()) {
          return Setting.Read.bad("\"" + entry + "\" is no namespace name; give namespace names, comma-separated,"
              + " or * for every namespace");
        }
        namespaces.add(entry);
      }
    }
    if (any && !namespaces.isEmpty()) {
      return Setting.Read.bad("* stands alone: it allows every namespace");
    }
    return Setting.Read.ok(new UsersFrom(any, namespaces));
  }

  @Override
  public String toString() {
    return any ? "*" : String.join(",", new TreeSet<>(namespaces));
  }
}
