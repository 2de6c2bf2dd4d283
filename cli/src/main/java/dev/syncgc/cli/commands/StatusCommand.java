package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.OperatorInfo;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.render.Output;
import dev.syncgc.cli.render.TreeView;
import dev.syncgc.core.deletion.inuse.InUse;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "status", mixinStandardHelpOptions = true,
    description = "The operator's health and leader, its graph size, and every deletion in progress in the namespace"
        + " (-A: everywhere), oldest first, with the dependents it still waits for; the in-use holds among them (objects"
        + " that wait for their users, syncgc.dev/uses), with the users.")
public final class StatusCommand extends ClusterCommand {
  @Option(names = "--operator-namespace", description = "Where the operator's Pods run (default: found by label).")
  String operatorNamespace;

  @Option(names = {"-A", "--all-namespaces"}, description = "Deletions in every namespace (and of cluster-scoped"
      + " objects), not only in the namespace of -n or the context.")
  boolean allNamespaces;

  @Mixin Watch watch;

  @Override
  Watch watch() {
    return watch;
  }

  @Override
  String describe(Cluster cluster) {
    return "status" + (allNamespaces ? " -A" : " -n " + cluster.namespace);
  }

  @Override
  void run(Cluster cluster, Output out) {
    OperatorInfo operator = OperatorInfo.read(cluster, operatorNamespace);
    Double graph = operator.metric(cluster, "syncgc_graph_objects");
    Double holds = operator.metric(cluster, "syncgc_in_use_holds");
    Snapshot s = Snapshot.everything(cluster, allNamespaces ? null : cluster.namespace);
    List<Map<String, Object>> rows = rows(s, allNamespaces ? null : cluster.namespace, Instant.now());
    List<Map<String, Object>> held = rows.stream().filter(r -> !((List<?>) r.get("inUseBy")).isEmpty()).toList();
    if (out.text()) {
      operator.facts.forEach(out::line);
      out.line("graph: " + (graph == null ? "unknown (the leader's /metrics cannot be read through the API server)"
          : Math.round(graph) + " objects (syncgc_graph_objects)"));
      List<Map<String, Object>> owners = rows.stream().filter(r -> r.get("cascadedFrom") == null).toList();
      out.line("deletions in progress" + (allNamespaces ? "" : " in namespace " + cluster.namespace) + ": " + owners.size() + " owner" + (owners.size() == 1 ? "" : "s")
          + " (and " + (rows.size() - owners.size()) + " dependents under them)" + (owners.isEmpty() ? "" : ", oldest first:"));
      for (Map<String, Object> r : owners) {
        out.line("  " + r.get("kind") + "/" + (r.containsKey("namespace") ? r.get("namespace") + "/" : "") + r.get("name")
            + "  for " + r.get("for") + "  " + r.get("dependentsLeft") + " dependents left"
            + (r.get("dependentsAtStart") == null ? "" : " of " + r.get("dependentsAtStart") + " at the start")
            + (r.get("deadline") == null ? "" : "  deadline " + r.get("deadline")));
      }
      inUseLines(held, allNamespaces ? null : cluster.namespace, holds).forEach(out::line);
      Notes.notChecked(out, s);
    } else {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("operator", operator.model);
      m.put("graphObjects", graph);
      m.put("deletions", rows);
      m.put("inUseHolds", held.size());
      m.put("inUseHoldsMetric", holds);
      m.put("notChecked", Notes.notCheckedModel(s));
      out.data(m);
    }
  }

  /**
   * Every deletion in progress in {@code namespace} (null: everywhere, cluster-scoped objects too),
   * oldest first; {@code inUseBy}: the users it waits for before its own deletion starts, as the
   * planner decides it ({@code WaitForUsers}: users left that do not use it back), empty if none.
   */
  static List<Map<String, Object>> rows(Snapshot s, String namespace, Instant now) {
    DependencyGraph g = s.graph();
    List<ObjectMetadata> deleting = s.objects.values().stream()
        .filter(o -> o.beingDeleted() && o.hasFinalizer(Names.FINALIZER))
        .filter(o -> namespace == null || namespace.equals(o.ref().namespace()))
        .sorted(Comparator.comparing(ObjectMetadata::deletionTimestamp)).toList();
    List<Map<String, Object>> rows = new ArrayList<>();
    for (ObjectMetadata o : deleting) {
      Map<String, Object> r = Notes.ref(o);
      r.put("for", TreeView.human(Duration.between(o.deletionTimestamp(), now)));
      r.put("dependentsLeft", g.transitiveDependentCount(o.uid()));
      r.put("deadline", o.annotation(Names.DEADLINE));
      r.put("cascadedFrom", o.annotation(Names.CASCADED_FROM));
      if (o.annotation(Names.CASCADED_FROM) == null) {
        r.put("dependentsAtStart", atStart(o));
      }
      InUse.Hold hold = InUse.of(g, o);
      List<Map<String, Object>> users = new ArrayList<>();
      for (ObjectMetadata u : hold.holds() ? hold.users() : List.<ObjectMetadata>of()) {
        Map<String, Object> user = Notes.ref(u);
        user.put("state", TreeView.state(u));
        users.add(user);
      }
      r.put("inUseBy", users);
      rows.add(r);
    }
    return rows;
  }

  /** The in-use holds among the deletions, oldest first, with the operator's own count when it can be read. */
  static List<String> inUseLines(List<Map<String, Object>> held, String namespace, Double metric) {
    List<String> lines = new ArrayList<>();
    lines.add("in-use holds" + (namespace == null ? "" : " in namespace " + namespace) + ": " + held.size()
        + (held.isEmpty() ? "" : " (waiting for their users before their own deletion starts, no deadline)")
        + (metric == null ? "" : "; syncgc_in_use_holds " + Math.round(metric) + " in the whole cluster")
        + (held.isEmpty() ? "" : ", oldest first:"));
    for (Map<String, Object> r : held) {
      List<?> users = (List<?>) r.get("inUseBy");
      List<String> names = new ArrayList<>();
      for (Object u : users) {
        Map<?, ?> m = (Map<?, ?>) u;
        names.add(m.get("kind") + "/" + (m.containsKey("namespace") ? m.get("namespace") + "/" : "") + m.get("name")
            + " (" + m.get("state") + ")");
      }
      lines.add("  " + r.get("kind") + "/" + (r.containsKey("namespace") ? r.get("namespace") + "/" : "") + r.get("name")
          + "  for " + r.get("for") + "  waits for " + users.size() + " user" + (users.size() == 1 ? "" : "s") + ": "
          + String.join(", ", names.subList(0, Math.min(names.size(), 10))) + (names.size() > 10 ? ", ..." : ""));
    }
    return lines;
  }

  /** How many dependents the owner had when its deletion started, as the operator recorded it. */
  private static Integer atStart(ObjectMetadata owner) {
    try {
      String count = owner.annotation(Names.DEPENDENTS_AT_START);
      return count == null ? null : Integer.valueOf(count);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
