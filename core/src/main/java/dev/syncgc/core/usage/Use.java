package dev.syncgc.core.usage;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One entry of a user's {@code syncgc.dev/uses}, resolved: the used object's identity (group, kind,
 * namespace, name; no uid, so that an object that does not exist yet is matched when it appears), or
 * (with {@code error}) why the entry names nothing.
 */
public record Use(String group, String kind, String namespace, String name, String error) {

  /** Whether this entry names the object {@code ref}. */
  public boolean is(ObjectRef ref) {
    return error == null && group.equals(ref.group()) && kind.equals(ref.kind()) && name.equals(ref.name())
        && Objects.equals(namespace, ref.namespace());
  }

  public boolean valid() {
    return error == null;
  }

  /**
   * Every entry of {@code user}'s annotation, its kind resolved now by {@code resolve}: a namespaced
   * object in the user's namespace, a cluster-scoped one by its name.
   */
  public static List<Use> of(ObjectMetadata user, Function<String, KindNames.Resolution> resolve) {
    Uses uses = Uses.parse(user.annotation(Names.USES));
    List<Use> all = new ArrayList<>();
    for (String error : uses.errors()) {
      all.add(new Use(null, null, null, null, error));
    }
    for (Uses.Named named : uses.named()) {
      all.add(resolve(user, named, resolve));
    }
    return all;
  }

  /** One well-formed entry of {@code user}'s annotation, its kind resolved now. */
  public static Use resolve(ObjectMetadata user, Uses.Named named, Function<String, KindNames.Resolution> resolve) {
    KindNames.Resolution r = resolve.apply(named.kind());
    if (!r.found()) {
      return new Use(null, null, null, named.name(), "\"" + named + "\": " + r.error());
    }
    if (r.kind().namespaced() && user.ref().namespace() == null) {
      return new Use(null, null, null, named.name(), "\"" + named + "\": " + r.kind().kind()
          + " is namespaced and " + user.ref().kind() + " is cluster-scoped: it cannot name one");
    }
    return new Use(r.kind().group(), r.kind().kind(), r.kind().namespaced() ? user.ref().namespace() : null,
        named.name(), null);
  }

  @Override
  public String toString() {
    if (error != null) {
      return error;
    }
    return (group.isEmpty() ? kind : kind + "." + group) + "/" + (namespace == null ? "" : namespace + "/") + name;
  }
}
