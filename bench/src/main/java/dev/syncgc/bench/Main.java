package dev.syncgc.bench;

import dev.syncgc.kube.CommonPool;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code java -jar bench/target/syncgc-bench.jar compare|scale|report}: see {@code make bench}. */
@Command(name = "syncgc-bench", mixinStandardHelpOptions = true, versionProvider = Machine.Version.class,
    subcommands = {CompareCommand.class, ScaleCommand.class, InUseCommand.class, PlannerCommand.class,
        ReportCommand.class, GuardCommand.class},
    description = {"Benchmarks syncgc on a local control plane (e2e/cluster.sh): against the built-in "
        + "foreground deletion and the API server's floor (compare), and with many tracked objects (scale)."})
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  public static void main(String[] args) {
    CommonPool.ensureParallelism(); // the floor's HTTP client as the operator's
    System.exit(new CommandLine(new Main()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
