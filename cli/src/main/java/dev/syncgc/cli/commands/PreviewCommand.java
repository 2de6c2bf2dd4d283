package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.render.Output;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "preview", mixinStandardHelpOptions = true,
    description = "A dry run of deleting the object: what syncgc would delete (leaves first, users before what they"
        + " use), what would survive and why (a solid owner, orphaning, users outside the deletion: syncgc.dev/uses),"
        + " the users it would wait for, the rings it would release, and an estimate of the time. Runs the operator's"
        + " own planner.")
public final class PreviewCommand extends ClusterCommand {
  @Parameters(arity = "1..2", paramLabel = Target.LABEL, description = "The object to preview the deletion of (e.g. widget/my-app or widget my-app).")
  List<String> target;

  @Option(names = "--qps", defaultValue = "200",
      description = "The operator's --kube-api-qps, for the estimate (default: ${DEFAULT-VALUE}, the chart's).")
  double qps;

  @Override
  void run(Cluster cluster, Output out) {
    Snapshot s = Snapshot.load(cluster, Target.of(target));
    Preview p = Preview.of(s.kindInfo(), List.copyOf(s.objects.values()), s.target, s::settingsOf,
        s::keptBecause, Instant.now());
    String by = s.target.annotation(Names.PROPAGATION) != null ? "annotation " + Names.PROPAGATION
        : s.policyOf(s.target).map(n -> "GarbageCollectionPolicy " + n).orElse("its recorded setting");
    if (out.text()) {
      text(out, p, by);
      Notes.notChecked(out, s);
    } else {
      out.data(model(p, by, Notes.notCheckedModel(s)));
    }
  }

  void text(Output out, Preview p, String by) {
    String name = Notes.name(p.target.ref());
    if (p.propagation.isEmpty()) {
      out.line(name + " is not opted in to syncgc: deleting it, the built-in garbage collector would delete its"
          + " dependents in the background, in no order (see kubectl syncgc why " + String.join(" ", target) + ").");
      return;
    }
    if (!p.target.hasFinalizer(Names.FINALIZER)) {
      out.line("note: " + name + " does not carry syncgc's finalizer yet: is the operator running?");
    }
    int n = p.targetUsers.size();
    if (n > 0) {
      out.line(name + " is in use: its deletion would wait, with no deadline, before anything of it starts, until "
          + (n == 1 ? "its user is" : "its " + n + " users are") + " gone or no longer name" + (n == 1 ? "s" : "")
          + " it (" + Names.USES + "): " + users(p.targetUsers) + ". Then:");
    }
    Map<ObjectMetadata, List<ObjectMetadata>> after = new LinkedHashMap<>();
    p.afterUsers.forEach(u -> after.put(u.object(), u.users()));
    out.line("Deleting " + name + " (" + p.propagation.get().value() + ", by " + by + ") would delete "
        + p.deleted.size() + " object" + (p.deleted.size() == 1 ? "" : "s")
        + (p.deleted.isEmpty() ? "." : ", in this order:"));
    p.deleted.forEach(o -> out.line("  " + Notes.name(o.ref()) + (after.containsKey(o)
        ? "  after its user" + (after.get(o).size() == 1 ? " " : "s ") + String.join(", ",
            after.get(o).stream().map(u -> Notes.name(u.ref())).toList()) : "")));
    if (!p.kept.isEmpty()) {
      out.line("It would keep " + p.kept.size() + ":");
      p.kept.forEach(k -> out.line("  " + Notes.name(k.object().ref()) + "  " + k.why()));
    }
    p.waitsForUsers.forEach(u -> out.line("Waits for users being deleted first, on " + Notes.name(u.object().ref())
        + ": " + users(u.users())));
    p.rings.forEach(r -> out.line("Ring released as a unit: " + String.join(" -> ",
        r.stream().map(Notes::name).toList())));
    p.usersRings.forEach(r -> out.line("Users that use each other, released as a unit: " + String.join(" -> ",
        r.stream().map(Notes::name).toList())));
    p.heldBy.forEach((o, f) -> out.line("Waits for " + f + " on " + Notes.name(o.ref()) + " (another controller)"));
    p.unsettled.forEach(o -> out.line("Would stay marked as deleted: " + Notes.name(o.ref())));
    if (!p.notReached.isEmpty()) {
      out.line("Would not be deleted before the owner's deadline (behind what stays): "
          + String.join(", ", p.notReached.stream().map(o -> Notes.name(o.ref())).toList()));
    }
    out.line(String.format("About %d API requests: %.1f s at %.0f requests/s, plus the time other finalizers and"
        + " grace periods take.", p.requests, p.requests / qps, qps));
  }

  private static String users(List<ObjectMetadata> users) {
    return String.join(", ", users.stream().map(PreviewUsers::named).toList());
  }

  private static List<Map<String, Object>> refs(List<ObjectMetadata> objects) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ObjectMetadata o : objects) {
      Map<String, Object> r = Notes.ref(o);
      r.put("state", dev.syncgc.cli.render.TreeView.state(o));
      out.add(r);
    }
    return out;
  }

  private static List<Map<String, Object>> users(List<Preview.Users> users, String key) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Preview.Users u : users) {
      Map<String, Object> r = Notes.ref(u.object());
      r.put(key, refs(u.users()));
      out.add(r);
    }
    return out;
  }

  private Map<String, Object> model(Preview p, String by, List<String> notChecked) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", Notes.ref(p.target));
    m.put("optedIn", p.propagation.isPresent());
    m.put("propagation", p.propagation.map(x -> x.value()).orElse(null));
    m.put("by", p.propagation.isPresent() ? by : null);
    m.put("inUseBy", refs(p.targetUsers));
    Map<ObjectMetadata, List<ObjectMetadata>> after = new LinkedHashMap<>();
    p.afterUsers.forEach(u -> after.put(u.object(), u.users()));
    List<Map<String, Object>> deleted = new ArrayList<>();
    for (ObjectMetadata o : p.deleted) {
      Map<String, Object> r = Notes.ref(o);
      if (after.containsKey(o)) {
        r.put("afterUsers", after.get(o).stream().map(Notes::ref).toList());
      }
      deleted.add(r);
    }
    m.put("delete", deleted);
    List<Map<String, Object>> kept = new ArrayList<>();
    for (Preview.Kept k : p.kept) {
      Map<String, Object> r = Notes.ref(k.object());
      r.put("why", k.why());
      if (!k.users().isEmpty()) {
        r.put("inUseBy", refs(k.users()));
      }
      kept.add(r);
    }
    m.put("keep", kept);
    m.put("waitsForUsers", users(p.waitsForUsers, "users"));
    m.put("rings", p.rings.stream().map(r -> r.stream().map(Notes::ref).toList()).toList());
    m.put("usersRings", p.usersRings.stream().map(r -> r.stream().map(Notes::ref).toList()).toList());
    List<Map<String, Object>> held = new ArrayList<>();
    p.heldBy.forEach((o, f) -> {
      Map<String, Object> r = Notes.ref(o);
      r.put("finalizers", f);
      held.add(r);
    });
    m.put("waitsFor", held);
    m.put("unsettled", p.unsettled.stream().map(Notes::ref).toList());
    m.put("notReached", p.notReached.stream().map(Notes::ref).toList());
    m.put("count", p.deleted.size());
    m.put("requests", p.requests);
    m.put("estimateSeconds", p.requests / qps);
    m.put("notChecked", notChecked);
    return m;
  }
}
