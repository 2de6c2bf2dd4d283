package dev.syncgc.bench;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** Rewrites docs/benchmarks.md from the CSV files, without running anything. */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Rewrites the markdown report from the CSV files and prints the comparison table.")
final class ReportCommand implements Callable<Integer> {
  @Mixin Options opts;

  @Override
  public Integer call() throws Exception {
    var compare = Csv.read(opts.csv);
    compare.ifPresent(c -> System.out.println(Report.console(c)));
    Report.writeMarkdown(opts);
    System.out.println("wrote " + opts.docs);
    return 0;
  }
}
