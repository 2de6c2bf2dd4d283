package dev.syncgc.cli.commands;

import dev.syncgc.cli.render.TreeView;
import dev.syncgc.cli.render.UsageView;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * SPEC "In use" in {@code why}: the users that keep the object (and whether they hold it), what it,
 * as a user, holds up, and the dependents an owner waits for that wait for their users first.
 */
final class WhyUsage {
  private WhyUsage() {}

  /** Adds the object's users and what it uses, if any, to {@code w}. */
  static void add(Why w, DependencyGraph graph, ObjectMetadata o) {
    InUse.Hold hold = InUse.of(graph, o);
    if (!hold.users().isEmpty()) {
      w.lines.add("Used by (" + Names.USES + "), " + usersDo(o, hold) + ":");
      hold.users().forEach(u -> w.lines.add("  " + Notes.name(u.ref()) + "  " + TreeView.state(u)));
      List<Map<String, Object>> users = new ArrayList<>();
      for (ObjectMetadata u : hold.users()) {
        Map<String, Object> r = Notes.ref(u);
        r.put("state", TreeView.state(u));
        users.add(r);
      }
      w.model.put("usedBy", users);
    }
    List<UsageView.Link> uses = new UsageView(graph).uses(o);
    if (!uses.isEmpty()) {
      w.lines.add("Uses (" + Names.USES + "):");
      List<Map<String, Object>> model = new ArrayList<>();
      for (UsageView.Link l : uses) {
        String effect = effect(graph, o, l);
        w.lines.add("  " + l.text(o).substring(UsageView.USES.length()) + (effect == null ? "" : "; " + effect));
        Map<String, Object> m = new LinkedHashMap<>(l.model());
        if (effect != null) {
          m.put("effect", effect);
        }
        model.add(m);
      }
      w.model.put("uses", model);
    }
  }

  /** What the users do to the object: hold it, or why they do not. */
  private static String usersDo(ObjectMetadata o, InUse.Hold hold) {
    boolean guarded = o.hasFinalizer(Names.FINALIZER);
    if (guarded && o.beingDeleted()) {
      return hold.holds() ? "each must be gone (or no longer name it) before its own deletion starts"
          : "which use it back, all being deleted: they go as a unit";
    }
    if (guarded) {
      return "which deleting it would wait for first, with no deadline";
    }
    if (o.beingDeleted()) {
      return "which do not hold it: it does not carry syncgc's finalizer";
    }
    return "which do not hold it: it does not carry syncgc's finalizer (only an opted-in object is protected),"
        + " though a synchronous cascade that would delete it waits for them first";
  }

  /** What this user's entry does to the object it names, or null when it names nothing (the line says why). */
  private static String effect(DependencyGraph graph, ObjectMetadata user, UsageView.Link l) {
    ObjectMetadata used = l.other();
    if (used == null) {
      return null;
    }
    InUse.Hold hold = InUse.of(graph, used);
    if (hold.users().stream().noneMatch(u -> u.uid().equals(user.uid()))) {
      return used.uid().equals(user.uid()) ? "itself: no hold" : "no hold: it is below it (its deletion deletes it first)";
    }
    if (!used.hasFinalizer(Names.FINALIZER)) {
      return used.beingDeleted() ? "not held: syncgc's finalizer is gone"
          : "not protected: not opted in (a synchronous cascade that deletes it waits for this first)";
    }
    if (!used.beingDeleted()) {
      return "protected: its deletion would wait for this";
    }
    return hold.holds() ? "held: it waits for this to be gone (or no longer name it)"
        : "they use each other, all being deleted: released as a unit";
  }

  /**
   * The dependents of {@code owner} that wait for users of theirs before they are deleted (users first),
   * in words: those not being deleted that the plan does not delete now and that are held in use.
   */
  static List<String> heldDependents(DependencyGraph graph, ObjectMetadata owner, List<Step> steps) {
    List<String> out = new ArrayList<>();
    if (steps.isEmpty() || steps.get(0) instanceof Step.WaitForUsers) {
      return out; // nothing of its deletion has started
    }
    for (ObjectMetadata d : graph.dependentsOf(owner.uid())) {
      boolean deletedNow = steps.stream().anyMatch(s -> s instanceof Step.DeleteDependent dd
          && dd.dependent().uid().equals(d.uid()));
      InUse.Hold hold = d.beingDeleted() || deletedNow ? InUse.Hold.NONE : InUse.of(graph, d);
      if (hold.holds()) {
        out.add(Notes.name(d.ref()) + " waits for its user" + (hold.users().size() == 1 ? "" : "s") + " first ("
            + Names.USES + "): " + String.join(", ", hold.users().stream()
            .map(u -> Notes.name(u.ref()) + " (" + TreeView.state(u) + ")").toList()));
      }
    }
    return out;
  }
}
