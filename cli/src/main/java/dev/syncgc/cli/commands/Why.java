package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.render.TreeView;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.settings.Propagation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The answer to "why is it still there?" or "is it opted in?", from the operator's own rules. */
final class Why {
  final List<String> lines = new ArrayList<>();
  final Map<String, Object> model = new LinkedHashMap<>();

  static Why of(Snapshot s, Instant now) {
    Why w = new Why();
    ObjectMetadata o = s.target;
    String name = Notes.name(o.ref());
    SettingsInForce settings = s.inForce(o);
    DependencyGraph graph = s.graph();
    String kept = s.keptBecause(o);
    if (kept != null) {
      w.lines.add(kept + ": a syncgc cascade through its owners removes only its reference to them (only syncgc's"
          + " cascades honour it; kubectl delete --cascade=foreground|background of an owner deletes it)");
    }
    w.model.put("kept", kept);
    if (!o.beingDeleted()) {
      w.optIn(s, o, name, settings);
      WhyUsage.add(w, graph, o);
      w.lines.add("What deleting it would do: kubectl syncgc preview " + o.ref().kind().toLowerCase() + "/"
          + o.ref().name() + (o.ref().namespace() == null ? "" : " -n " + o.ref().namespace()));
      return w;
    }
    w.lines.add(name + " is " + TreeView.state(o) + ", for " + TreeView.human(Duration.between(o.deletionTimestamp(), now))
        + " (deletionTimestamp " + o.deletionTimestamp() + ").");
    w.lines.add("Held by:");
    WhyCommand.finalizers(o).forEach(f -> w.lines.add("  " + f));
    w.model.put("finalizers", WhyCommand.finalizers(o));
    if (o.finalizers().isEmpty()) {
      w.lines.add("  nothing: it goes as soon as its graceful deletion ends");
    }
    if (o.hasFinalizer(Names.FINALIZER)) {
      List<Step> steps = new DeletionPlanner(Duration.ofHours(1), Duration.ZERO).plan(graph, o, settings, now,
          uid -> null, List.of(), s::inForce);
      String doing = syncgc(o, settings, steps);
      w.lines.add("syncgc: " + doing);
      w.model.put("syncgc", doing);
      List<String> held = WhyUsage.heldDependents(graph, o, steps);
      held.forEach(h -> w.lines.add("in use: " + h));
      if (!held.isEmpty()) {
        w.model.put("dependentsInUse", held);
      }
      String deadline = o.annotation(Names.DEADLINE);
      boolean inUse = steps.get(0) instanceof Step.WaitForUsers;
      w.model.put("inUse", inUse);
      if (deadline == null && inUse) {
        w.lines.add("deadline: none while it is in use (an in-use hold has none; its own deadline starts once the last"
            + " user is gone)");
      } else if (deadline == null) {
        w.lines.add("deadline: none recorded yet (syncgc has not started on it: is the operator running?)");
      } else {
        Duration left = Duration.between(now, Instant.parse(deadline));
        w.lines.add("deadline: " + deadline + (left.isNegative() ? " (passed " + TreeView.human(left.negated()) + " ago)"
            : " (in " + TreeView.human(left) + ")") + ", on timeout: " + settings.onTimeout().value()
            + (inUse ? "; not applied while it is in use (an in-use hold has none)" : ""));
        w.model.put("deadline", deadline);
        w.model.put("secondsLeft", left.toSeconds());
      }
    }
    WhyUsage.add(w, graph, o);
    return w;
  }

  /** What the operator's planner would do for the object now, in the words of its Events. */
  private static String syncgc(ObjectMetadata o, SettingsInForce settings, List<Step> steps) {
    Propagation mode = settings.propagationOrBackground();
    List<String> parts = new ArrayList<>();
    long deletes = steps.stream().filter(x -> x instanceof Step.DeleteDependent).count();
    if (deletes > 0) {
      parts.add("deleting " + deletes + " dependent" + (deletes == 1 ? "" : "s") + " now");
    }
    for (Step step : steps) {
      if (step instanceof Step.WaitForUsers users) {
        parts.add(users.message());
      } else if (step instanceof Step.RingOfUsers ring) {
        parts.add("its users use it back, all being deleted: released as a unit with them ("
            + String.join(" -> ", ring.path().stream().map(Notes::name).toList()) + ", " + Names.USES + ")");
      } else if (step instanceof Step.Wait wait) {
        parts.add(wait.message(o.annotation(Names.TIMED_OUT) != null));
      } else if (step instanceof Step.Release release) {
        parts.add("nothing left to wait for: it lets the object go (" + release.outcome().label() + ")");
      } else if (step instanceof Step.TimedOut) {
        parts.add("the deadline has passed (" + Names.ON_TIMEOUT + ": Keep): kept until its dependents are gone");
      } else if (step instanceof Step.ReleaseRing ring) {
        parts.add("releasing a ring as a unit: " + String.join(" -> ", ring.path().stream().map(Notes::name).toList()));
      }
    }
    return parts.isEmpty() ? "following " + mode.value() : mode.value() + ": " + String.join("; ", parts);
  }

  private void optIn(Snapshot s, ObjectMetadata o, String name, SettingsInForce settings) {
    String annotation = o.annotation(Names.PROPAGATION);
    Optional<String> policy = s.policyOf(o);
    Optional<Propagation> p = settings.propagation();
    String how;
    if (settings.propagationInvalid()) {
      how = "invalid setting " + settings.own().invalid() + "; an invalid annotation never changes what was in force";
    } else if (annotation != null && p.isPresent()) {
      how = (p.get() == Propagation.BACKGROUND ? "opted out (Background)" : "opted in: " + p.get().value())
          + ", by its annotation " + Names.PROPAGATION + " (an annotation wins over every policy"
          + policy.map(n -> ", here over GarbageCollectionPolicy " + n).orElse("") + ")";
    } else if (policy.isPresent() && p.isPresent()) {
      how = "opted in: " + p.get().value() + ", by GarbageCollectionPolicy " + policy.get()
          + " (of the policies selecting it, the highest priority decides, then the first name)";
    } else {
      how = "not opted in: no " + Names.PROPAGATION + " annotation and no GarbageCollectionPolicy selects it;"
          + " deleting it leaves its dependents to the built-in garbage collector";
    }
    boolean opted = p.isPresent() && p.get().needsFinalizer();
    boolean has = o.hasFinalizer(Names.FINALIZER);
    lines.add(name + " is alive; " + how + ".");
    lines.add("syncgc's finalizer: " + (has ? "present" : "absent")
        + (opted && !has ? " (the operator has not added it yet: is it running?)" : ""));
    model.put("optedIn", opted);
    model.put("propagation", p.map(Propagation::value).orElse(null));
    model.put("by", annotation != null ? "annotation" : policy.map(n -> "policy " + n).orElse(null));
    model.put("finalizer", has);
    model.put("why", how);
  }
}
