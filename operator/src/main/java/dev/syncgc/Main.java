package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import dev.syncgc.kube.CommonPool;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/** Entry point of the operator jar. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    if (CommonPool.ensureParallelism() <= 1) { // before any HTTP client exists
      LoggerFactory.getLogger(Main.class).warn("the common ForkJoinPool has parallelism 1 (-D{}=1?): every HTTP "
          + "response will start a thread of its own", "java.util.concurrent.ForkJoinPool.common.parallelism");
    }
    int code = new CommandLine(new OperatorConfig()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }
}
