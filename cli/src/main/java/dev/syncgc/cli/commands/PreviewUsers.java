package dev.syncgc.cli.commands;

import dev.syncgc.cli.render.TreeView;
import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.usage.Uses;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * SPEC "In use" in a preview: the users outside the deletion that the objects of the deletion wait
 * for. The planner itself orders the users inside the deletion (users first); these are the ones it
 * cannot delete: being deleted (played going first, as other controllers' finalizers are), or not
 * (they hold what they use for as long as they name it).
 */
final class PreviewUsers {
  private PreviewUsers() {}

  /**
   * The users of {@code o} that keep it (core's rule: itself and the objects below it do not) and are
   * not in {@code deletion}.
   */
  static List<ObjectMetadata> outside(DependencyGraph view, ObjectMetadata o, Set<String> deletion) {
    return InUse.of(view, o).users().stream().filter(u -> !deletion.contains(u.uid())).toList();
  }

  /** The users of {@code o} being deleted that {@code p} names it waiting for (a new entry if it names none yet). */
  static List<ObjectMetadata> waitsFor(Preview p, ObjectMetadata o) {
    List<Preview.Users> all = p.waitsForUsers;
    if (all.isEmpty() || !all.get(all.size() - 1).object().equals(o)) {
      all.add(new Preview.Users(o, new ArrayList<>()));
    }
    return all.get(all.size() - 1).users();
  }

  /**
   * After the run: the dependents that users outside the deletion, not being deleted, keep (the owner
   * waits for them until its deadline, and a Release deadline does not delete them either), those
   * left behind them, those that wait for users outside it being deleted, and those deleted after
   * users of theirs.
   */
  static void after(Preview p, DependencyGraph view, Set<String> below, Set<String> dropped,
      Map<String, ObjectMetadata> after, List<String> removed) {
    Map<String, Integer> order = new HashMap<>(); // when each went
    for (int i = 0; i < removed.size(); i++) {
      order.put(removed.get(i), i);
    }
    for (String uid : below) {
      ObjectMetadata o = view.get(uid);
      List<ObjectMetadata> outside = uid.equals(p.target.uid()) ? List.of() : outside(view, o, below);
      ObjectMetadata now = after.get(uid);
      List<ObjectMetadata> keeping = outside.stream().filter(u -> !u.beingDeleted()).toList();
      if (now != null && !now.beingDeleted() && !dropped.contains(uid) && !keeping.isEmpty()) {
        p.kept.add(new Preview.Kept(o, "in use by " + String.join(", ", keeping.stream().map(u -> Notes.name(u.ref()))
            .toList()) + " (" + Names.USES + "), which this deletion does not delete: its owner waits for it until the"
            + " owner's deadline, and a Release deadline lets the owner go without it", keeping));
      }
      if (order.containsKey(uid)) {
        outside.stream().filter(ObjectMetadata::beingDeleted).forEach(u -> waitsFor(p, o).add(u));
      }
    }
    // a user in a ring of users with the object is not waited for: they go as a unit
    p.waitsForUsers.forEach(w -> w.users().removeIf(u -> p.usersRings.stream().anyMatch(r -> r.contains(u.ref())
        && r.contains(w.object().ref()))));
    p.waitsForUsers.removeIf(w -> w.users().isEmpty());
    Set<String> kept = new HashSet<>();
    p.kept.forEach(k -> kept.add(k.object().uid()));
    after.values().stream().filter(o -> !o.beingDeleted() && below.contains(o.uid()) && !kept.contains(o.uid())
        && !dropped.contains(o.uid())).forEach(o -> p.notReached.add(view.get(o.uid())));
    for (ObjectMetadata d : p.deleted) {
      List<ObjectMetadata> users = before(view, d, order).stream().filter(u -> below.contains(u.uid()))
          .toList(); // those outside it are named with what waits for them
      if (!users.isEmpty()) {
        p.afterUsers.add(new Preview.Users(d, users));
      }
    }
  }

  /** The users of {@code o} that keep it and are deleted in the run before it, in the order they went. */
  private static List<ObjectMetadata> before(DependencyGraph view, ObjectMetadata o, Map<String, Integer> order) {
    int at = order.get(o.uid());
    return InUse.of(view, o).users().stream().filter(u -> order.getOrDefault(u.uid(), at) < at)
        .sorted(java.util.Comparator.comparing(u -> order.get(u.uid()))).toList();
  }

  /**
   * {@code world} as it is once {@code users} no longer name {@code used} (or are gone): their entries
   * that name it dropped, each resolved as the graph resolves it; everything else as it is.
   */
  static List<ObjectMetadata> released(DependencyGraph view, List<ObjectMetadata> world, ObjectRef used,
      List<ObjectMetadata> users) {
    Set<String> uids = new HashSet<>();
    users.forEach(u -> uids.add(u.uid()));
    List<ObjectMetadata> out = new ArrayList<>();
    for (ObjectMetadata o : world) {
      out.add(uids.contains(o.uid()) ? without(view, o, used) : o);
    }
    return out;
  }

  private static ObjectMetadata without(DependencyGraph view, ObjectMetadata user, ObjectRef used) {
    List<String> kept = new ArrayList<>();
    for (Uses.Named named : Uses.parse(user.annotation(Names.USES)).named()) {
      if (view.uses(withUses(user, named.toString())).stream().noneMatch(u -> u.is(used))) {
        kept.add(named.toString());
      }
    }
    return withUses(user, kept.isEmpty() ? null : String.join(", ", kept));
  }

  private static ObjectMetadata withUses(ObjectMetadata o, String uses) {
    Map<String, String> annotations = new LinkedHashMap<>(o.annotations());
    if (uses == null) {
      annotations.remove(Names.USES);
    } else {
      annotations.put(Names.USES, uses);
    }
    return new ObjectMetadata(o.ref(), o.resourceVersion(), o.owners(), o.finalizers(), o.deletionTimestamp(),
        o.deletionGracePeriodSeconds(), annotations, o.labels());
  }

  /** {@code Kind/ns/name (state)}, as the preview names a user. */
  static String named(ObjectMetadata user) {
    return Notes.name(user.ref()) + " (" + TreeView.state(user) + ")";
  }
}
