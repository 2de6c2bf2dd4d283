package dev.syncgc.e2e.soak;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * The soak's own calls go through faults too (kube-apiserver or etcd restarting): a call that fails
 * for want of a server is made again until a deadline. An answer from the server that is not an
 * outage (a 404, a 409, a 422) is the answer and is not retried.
 */
final class Retry {
  static final Duration DEADLINE = Duration.ofMinutes(2);

  private Retry() {}

  static <T> T call(String what, Callable<T> call) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    long pause = 100;
    for (int attempt = 1; ; attempt++) {
      try {
        return call.call();
      } catch (Exception e) {
        if (!outage(e) || System.nanoTime() > deadline) {
          throw new IllegalStateException(what + " failed after " + attempt + " attempts: " + e.getMessage(), e);
        }
      }
      try {
        Thread.sleep(pause); // back-off between attempts while the server is away, not synchronisation
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(what + " interrupted", e);
      }
      pause = Math.min(2000, pause * 2);
    }
  }

  static void run(String what, Runnable call) {
    call(what, () -> {
      call.run();
      return null;
    });
  }

  /**
   * No answer at all, a 5xx, or a 429: the server (or the path to it) is away for now. The client
   * reports a request that got no answer (a connection closed while kube-apiserver restarts) with
   * code -1 or 0.
   */
  static boolean outage(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof KubernetesClientException k && k.getCode() > 0) {
        return k.getCode() >= 500 || k.getCode() == 429;
      }
    }
    return true;
  }
}
