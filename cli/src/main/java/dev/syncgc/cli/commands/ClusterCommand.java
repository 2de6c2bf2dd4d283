package dev.syncgc.cli.commands;

import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.render.Output;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every subcommand does around its own work: kubectl's flags, the output format, one connection. */
abstract class ClusterCommand implements Callable<Integer> {
  @Mixin ClusterOptions options;

  @Override
  public final Integer call() {
    Output out = new Output(options.output, System.out);
    try (Cluster cluster = Cluster.connect(options)) {
      run(cluster, out);
    }
    return ExitCodes.OK;
  }

  abstract void run(Cluster cluster, Output out);
}
