package dev.syncgc.cli.commands;

import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.render.Output;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;

/** What every subcommand does around its own work: kubectl's flags, the output format, one connection. */
abstract class ClusterCommand implements Callable<Integer> {
  @Mixin ClusterOptions options;

  @Override
  public final Integer call() throws InterruptedException {
    Output out = new Output(options.output, System.out, System.err);
    try (Cluster cluster = Cluster.connect(options)) {
      Watch watch = watch();
      if (watch != null && watch.on) {
        return watch.loop(options.output, "Every " + human(watch.interval) + ": kubectl syncgc " + describe(cluster),
            gone(), o -> run(cluster, o), System.out, d -> Thread.sleep(d.toMillis()));
      }
      run(cluster, out);
    }
    return ExitCodes.OK;
  }

  abstract void run(Cluster cluster, Output out);

  /** The command's --watch, null when it has none. */
  Watch watch() {
    return null;
  }

  /** The command and its target, for the header of --watch. */
  String describe(Cluster cluster) {
    return "";
  }

  /** The last line of --watch, once the target is gone. */
  String gone() {
    return "";
  }

  private static String human(Duration d) {
    return d.toMillis() % 1000 != 0 ? d.toMillis() + "ms" : d.toSeconds() + "s";
  }
}
