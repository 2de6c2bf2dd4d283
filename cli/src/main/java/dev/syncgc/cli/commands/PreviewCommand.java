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
    description = "A dry run of deleting the object: what syncgc would delete (leaves first), what would survive"
        + " and why, the rings it would release, and an estimate of the time. Runs the operator's own planner.")
public final class PreviewCommand extends ClusterCommand {
  @Parameters(arity = "1..2", paramLabel = Target.LABEL, description = "The object to preview the deletion of (e.g. widget/my-app or widget my-app).")
  List<String> target;

  @Option(names = "--qps", defaultValue = "200",
      description = "The operator's --kube-api-qps, for the estimate (default: ${DEFAULT-VALUE}, the chart's).")
  double qps;

  @Override
  void run(Cluster cluster, Output out) {
    Snapshot s = Snapshot.load(cluster, Target.of(target));
    Preview p = Preview.of(s.kindInfo(), List.copyOf(s.objects.values()), s.target, s::settingsOf, Instant.now());
    String by = s.target.annotation(Names.PROPAGATION) != null ? "annotation " + Names.PROPAGATION
        : s.policyOf(s.target).map(n -> "GarbageCollectionPolicy " + n).orElse("its recorded setting");
    if (out.text()) {
      text(out, p, by);
      Notes.notChecked(out, s);
    } else {
      out.data(model(p, by, Notes.notCheckedModel(s)));
    }
  }

  private void text(Output out, Preview p, String by) {
    String name = Notes.name(p.target.ref());
    if (p.propagation.isEmpty()) {
      out.line(name + " is not opted in to syncgc: deleting it, the built-in garbage collector would delete its"
          + " dependents in the background, in no order (see kubectl syncgc why " + String.join(" ", target) + ").");
      return;
    }
    if (!p.target.hasFinalizer(Names.FINALIZER)) {
      out.line("note: " + name + " does not carry syncgc's finalizer yet: is the operator running?");
    }
    out.line("Deleting " + name + " (" + p.propagation.get().value() + ", by " + by + ") would delete "
        + p.deleted.size() + " object" + (p.deleted.size() == 1 ? "" : "s") + ", in this order:");
    p.deleted.forEach(o -> out.line("  " + Notes.name(o.ref())));
    if (!p.kept.isEmpty()) {
      out.line("It would keep " + p.kept.size() + ":");
      p.kept.forEach(k -> out.line("  " + Notes.name(k.object().ref()) + "  " + k.why()));
    }
    p.rings.forEach(r -> out.line("Ring released as a unit: " + String.join(" -> ",
        r.stream().map(Notes::name).toList())));
    p.heldBy.forEach((o, f) -> out.line("Waits for " + f + " on " + Notes.name(o.ref()) + " (another controller)"));
    p.unsettled.forEach(o -> out.line("Would stay marked as deleted: " + Notes.name(o.ref())));
    out.line(String.format("About %d API requests: %.1f s at %.0f requests/s, plus the time other finalizers and"
        + " grace periods take.", p.requests, p.requests / qps, qps));
  }

  private Map<String, Object> model(Preview p, String by, List<String> notChecked) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", Notes.ref(p.target));
    m.put("optedIn", p.propagation.isPresent());
    m.put("propagation", p.propagation.map(x -> x.value()).orElse(null));
    m.put("by", p.propagation.isPresent() ? by : null);
    m.put("delete", p.deleted.stream().map(Notes::ref).toList());
    List<Map<String, Object>> kept = new ArrayList<>();
    for (Preview.Kept k : p.kept) {
      Map<String, Object> r = Notes.ref(k.object());
      r.put("why", k.why());
      kept.add(r);
    }
    m.put("keep", kept);
    m.put("rings", p.rings.stream().map(r -> r.stream().map(Notes::ref).toList()).toList());
    List<Map<String, Object>> held = new ArrayList<>();
    p.heldBy.forEach((o, f) -> {
      Map<String, Object> r = Notes.ref(o);
      r.put("finalizers", f);
      held.add(r);
    });
    m.put("waitsFor", held);
    m.put("unsettled", p.unsettled.stream().map(Notes::ref).toList());
    m.put("count", p.deleted.size());
    m.put("requests", p.requests);
    m.put("estimateSeconds", p.requests / qps);
    m.put("notChecked", notChecked);
    return m;
  }
}
