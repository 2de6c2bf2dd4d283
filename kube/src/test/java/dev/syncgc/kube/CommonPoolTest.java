package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs a JVM that sees two CPUs (as on this project's CI machine, or in a Pod limited to 2 CPUs) and
 * counts the threads 200 async stages start, with and without {@link CommonPool#ensureParallelism()}.
 */
class CommonPoolTest {
  private static final int STAGES = 200;

  @Test
  void withTwoCpusAsyncStagesShareAPoolInsteadOfAThreadEach() throws Exception {
    assertTrue(threadsStarted(false) >= STAGES,
        "without the setting, a JVM with two CPUs starts a thread per async stage (the hazard this guards)");
    assertTrue(threadsStarted(true) <= CommonPool.MIN_PARALLELISM + 2,
        "with it, the stages run on the common pool's few threads");
  }

  @Test
  void aParallelismTheUserSetIsKept() throws Exception {
    assertEquals(7, probe(true, "-D" + CommonPool.PROPERTY + "=7")[1]);
  }

  private static long threadsStarted(boolean ensure) throws Exception {
    return probe(ensure)[0];
  }

  /** {threads started by the stages, the common pool's parallelism} in a JVM with two CPUs. */
  private static long[] probe(boolean ensure, String... jvmOptions) throws IOException, InterruptedException {
    String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(javaBin, "-XX:ActiveProcessorCount=2"));
    command.addAll(List.of(jvmOptions));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName(),
        Boolean.toString(ensure)));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe JVM finished");
    assertEquals(0, p.exitValue(), out);
    String[] parts = out.lines().reduce((a, b) -> b).orElse("").split(" ");
    return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
  }

  /** Prints the threads started by STAGES async stages, and the common pool's parallelism. */
  public static final class Probe {
    public static void main(String[] args) {
      if (Boolean.parseBoolean(args[0])) {
        CommonPool.ensureParallelism();
      }
      var threads = ManagementFactory.getThreadMXBean();
      long before = threads.getTotalStartedThreadCount();
      for (int i = 0; i < STAGES; i++) {
        CompletableFuture.supplyAsync(() -> 1).join();
      }
      System.out.println((threads.getTotalStartedThreadCount() - before) + " "
          + java.util.concurrent.ForkJoinPool.getCommonPoolParallelism());
    }
  }
}
