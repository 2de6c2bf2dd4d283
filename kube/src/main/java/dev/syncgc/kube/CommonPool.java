package dev.syncgc.kube;

import java.util.concurrent.ForkJoinPool;

/**
 * With one or two CPUs (a small node, a Pod's CPU limit) the JVM gives the common ForkJoinPool a
 * parallelism of 1, and CompletableFuture then runs every async stage that names no executor on a
 * thread of its own. The JDK HTTP client under Fabric8 has such stages for every response: a
 * 10,000-object cascade started about 15,000 threads and spent more CPU on that than on deleting.
 * {@link #ensureParallelism()}, called first thing in main, gives the pool at least 4 threads.
 */
public final class CommonPool {
  static final String PROPERTY = "java.util.concurrent.ForkJoinPool.common.parallelism";
  static final int MIN_PARALLELISM = 4;

  private CommonPool() {}

  /**
   * Sets the common pool's parallelism unless the user did; must run before anything uses the pool.
   * Returns the pool's parallelism (1 means async stages still get a thread each).
   */
  public static int ensureParallelism() {
    if (System.getProperty(PROPERTY) == null) {
      System.setProperty(PROPERTY,
          Integer.toString(Math.max(MIN_PARALLELISM, Runtime.getRuntime().availableProcessors())));
    }
    return ForkJoinPool.getCommonPoolParallelism();
  }
}
