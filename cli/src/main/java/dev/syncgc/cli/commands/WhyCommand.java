package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.OperatorInfo;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.render.Output;
import dev.syncgc.cli.render.TreeView;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "why", mixinStandardHelpOptions = true,
    description = "Why an object being deleted is still there (each finalizer and who holds it, the users it waits"
        + " for and the dependents syncgc waits for, the deadline, whether the operator runs), or, for an object not"
        + " being deleted, whether and by what it is opted in; for both, its users (syncgc.dev/uses) and whether they"
        + " hold it, and what it uses and holds up.")
public final class WhyCommand extends ClusterCommand {
  @Parameters(arity = "1..2", paramLabel = Target.LABEL, description = "The object (e.g. widget/my-app or widget my-app).")
  List<String> target;

  @Option(names = "--operator-namespace", description = "Where the operator's Pods run (default: found by label).")
  String operatorNamespace;

  @Mixin Watch watch;

  @Override
  Watch watch() {
    return watch;
  }

  @Override
  String describe(Cluster cluster) {
    return "why " + String.join(" ", target) + " -n " + cluster.namespace;
  }

  @Override
  String gone() {
    return String.join(" ", target) + " is gone";
  }

  @Override
  void run(Cluster cluster, Output out) {
    Snapshot s = Snapshot.load(cluster, Target.of(target));
    Instant now = Instant.now();
    Why why = Why.of(s, now);
    OperatorInfo operator = s.target.beingDeleted() ? OperatorInfo.read(cluster, operatorNamespace) : null;
    if (out.text()) {
      why.lines.forEach(out::line);
      if (operator != null) {
        operator.facts.forEach(out::line);
      }
      Notes.notChecked(out, s);
    } else {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("target", Notes.ref(s.target));
      m.put("state", TreeView.state(s.target));
      m.putAll(why.model);
      if (operator != null) {
        m.put("operator", operator.model);
      }
      m.put("notChecked", Notes.notCheckedModel(s));
      out.data(m);
    }
  }

  /** Who holds a finalizer, as far as can be told from its name. */
  static String holder(String finalizer) {
    if (finalizer.equals(Names.FINALIZER)) {
      return "syncgc";
    }
    if (finalizer.equals(Names.FOREGROUND_FINALIZER) || finalizer.equals(Names.ORPHAN_FINALIZER)) {
      return "the built-in garbage collector (kube-controller-manager)";
    }
    if (finalizer.equals("kubernetes")) {
      return "the namespace controller (kube-controller-manager)";
    }
    if (finalizer.startsWith("kubernetes.io/") || finalizer.contains(".k8s.io/")) {
      return "Kubernetes (" + finalizer.substring(0, finalizer.indexOf('/')) + ")";
    }
    int slash = finalizer.indexOf('/');
    return "another controller" + (slash > 0 ? " (" + finalizer.substring(0, slash) + ")" : "");
  }

  static List<String> finalizers(ObjectMetadata o) {
    List<String> out = new ArrayList<>();
    o.finalizers().forEach(f -> out.add(f + ": " + holder(f)));
    return out;
  }
}
