package dev.syncgc.cli.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Requests sent a few at a time: discovery and the lists of a snapshot are one request per
 * group-version or kind (about 50 on a small cluster), each mostly waiting for the API server.
 */
final class Parallel {
  /** At most this many requests under way: enough to hide the round trips, few enough for the server's priority levels. */
  static final int REQUESTS = 8;

  private Parallel() {}

  /** {@code f} applied to each item, the results in the items' order; an exception of {@code f} is thrown as it is. */
  static <T, R> List<R> map(List<T> items, Function<T, R> f) {
    if (items.size() <= 1) {
      return items.stream().map(f).toList();
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(REQUESTS, items.size()), r -> {
      Thread t = new Thread(r, "kubectl-syncgc-request");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Callable<R>> calls = new ArrayList<>();
      items.forEach(item -> calls.add(() -> f.apply(item)));
      List<R> results = new ArrayList<>();
      for (Future<R> done : pool.invokeAll(calls)) {
        results.add(done.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }
}
