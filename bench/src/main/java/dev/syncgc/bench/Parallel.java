package dev.syncgc.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/** A fixed pool that runs n tasks and returns their results in order; the first failure is thrown. */
final class Parallel implements AutoCloseable {
  private final ExecutorService pool;

  Parallel(int threads, String name) {
    AtomicInteger n = new AtomicInteger();
    pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  <T> List<T> map(int count, IntFunction<T> task) {
    List<Future<T>> futures = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int index = i;
      futures.add(pool.submit(() -> task.apply(index)));
    }
    List<T> results = new ArrayList<>(count);
    try {
      for (Future<T> f : futures) {
        results.add(f.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      futures.forEach(f -> f.cancel(true));
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      futures.forEach(f -> f.cancel(true));
      throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
    }
    return results;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
