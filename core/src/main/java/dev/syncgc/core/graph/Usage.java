package dev.syncgc.core.graph;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.usage.Use;
import dev.syncgc.core.usage.Uses;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * The graph's usage edges (SPEC "In use"): which observed objects name, in {@code syncgc.dev/uses},
 * an object of a given name. Only the names are indexed; what a name's kind stands for is resolved
 * when asked ({@link KindInfo#resolve}), so that a kind defined later counts at once and an object
 * that does not exist yet is matched when it appears. Only users are filed: a graph without the
 * annotation costs one empty map. Callers hold the graph's monitor.
 */
final class Usage {
  private final Map<String, Set<ObjectRef>> usersByName = new HashMap<>();
  private final Map<ObjectRef, Uses> parsed = new HashMap<>(); // user -> its annotation, read once

  /** An object changed from {@code before} (null: new) to {@code after} (null: gone). */
  void update(ObjectMetadata before, ObjectMetadata after) {
    String was = before == null ? null : before.annotation(Names.USES);
    String is = after == null ? null : after.annotation(Names.USES);
    if (Objects.equals(was, is)) {
      return;
    }
    ObjectRef ref = before != null ? before.ref() : after.ref();
    Uses now = Uses.parse(is);
    Uses old = now.named().isEmpty() ? parsed.remove(ref) : parsed.put(ref, now); // was, as read then
    for (String name : old == null ? List.<String>of() : old.names()) {
      Set<ObjectRef> users = usersByName.get(name);
      if (users != null && users.remove(ref) && users.isEmpty()) {
        usersByName.remove(name);
      }
    }
    for (String name : now.names()) {
      usersByName.computeIfAbsent(name, k -> new HashSet<>(2)).add(ref);
    }
  }

  boolean any() {
    return !usersByName.isEmpty();
  }

  /** The objects that name some object called {@code name}. */
  Set<ObjectRef> candidates(String name) {
    return usersByName.getOrDefault(name, Set.of());
  }

  /** The observed objects that use {@code used} now, in a stable order. */
  List<ObjectMetadata> usersOf(ObjectMetadata used, KindInfo kinds, Function<ObjectRef, ObjectMetadata> observed) {
    List<ObjectMetadata> users = new ArrayList<>();
    String name = used.ref().name();
    for (ObjectRef candidate : candidates(name)) {
      ObjectMetadata user = observed.apply(candidate);
      Uses uses = parsed.get(candidate);
      if (user != null && uses != null && uses.named().stream()
          .anyMatch(n -> n.name().equals(name) && Use.resolve(user, n, kinds::resolve).is(used.ref()))) {
        users.add(user);
      }
    }
    users.sort(Comparator.comparing(u -> u.ref().toString()));
    return users;
  }
}
