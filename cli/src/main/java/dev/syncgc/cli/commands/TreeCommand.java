package dev.syncgc.cli.commands;

import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.Readiness;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.cli.render.Output;
import dev.syncgc.cli.render.TreeView;
import dev.syncgc.core.model.ObjectMetadata;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "tree", mixinStandardHelpOptions = true,
    description = "The ownership tree below an object across every kind the server serves: state, readiness (its"
        + " Ready condition, as kubectl-tree's READY), age, finalizers,"
        + " diamonds (shown once) and cycles (marked with the path); under each object, on lines of their own, what it"
        + " uses (⇢ uses, from its syncgc.dev/uses; an entry that names nothing with why) and its users"
        + " (⇠ used by).")
public final class TreeCommand extends ClusterCommand {
  @Parameters(arity = "1..2", paramLabel = Target.LABEL, description = "The object, as kubectl names it (e.g. widget/my-app or widget my-app).")
  List<String> target;

  @Option(names = "--owners", description = "Show the chain of owners above the object instead.")
  boolean owners;

  @Override
  void run(Cluster cluster, Output out) {
    Snapshot s = Snapshot.load(cluster, Target.of(target));
    Instant now = Instant.now();
    // the objects shown, then their Ready conditions (the snapshot has metadata only), then the tree with them
    Map<String, Readiness.Ready> ready = Readiness.read(cluster, s.kinds, tree(s, o -> null, now).objects());
    TreeView.Node root = tree(s, o -> ready.get(o.uid()), now);
    if (out.text()) {
      TreeView.lines(root).forEach(out::line);
      Notes.notChecked(out, s);
    } else {
      Map<String, Object> model = new LinkedHashMap<>(root.model(owners ? "owners" : "dependents"));
      model.put("notChecked", Notes.notCheckedModel(s));
      out.data(model);
    }
  }

  private TreeView.Node tree(Snapshot s, Function<ObjectMetadata, Readiness.Ready> readyOf, Instant now) {
    TreeView view = new TreeView(s.graph(), s.created::get, o -> {
      int wave = s.settingsOf(o).wave();
      return wave == 0 ? null : wave;
    }, s::keptBecause, readyOf, now);
    return owners ? view.above(s.target) : view.below(s.target);
  }
}
