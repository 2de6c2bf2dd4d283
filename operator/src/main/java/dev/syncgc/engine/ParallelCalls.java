package dev.syncgc.engine;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs the calls for one owner's dependents in parallel, on a pool shared by all workers (a wide
 * owner would otherwise be bound by one request's latency); the rate limiter still bounds them all.
 */
final class ParallelCalls implements AutoCloseable {
  private final ExecutorService pool;

  ParallelCalls(int threads) {
    this.pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "api-call");
      t.setDaemon(true);
      return t;
    });
  }

  /** @return RETRY if any call asked for it */
  Next runAll(List<Callable<Next>> calls) {
    if (calls.size() <= 1) {
      try {
        return calls.isEmpty() ? Next.DONE : calls.get(0).call();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
    Next next = Next.DONE;
    try {
      for (Future<Next> f : calls.stream().map(pool::submit).toList()) {
        if (f.get() == Next.RETRY) {
          next = Next.RETRY;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Next.RETRY;
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
    return next;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
