package dev.syncgc;

import java.time.Duration;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's shutdown, bounded: a replica that must exit (it lost its Lease, or was told to stop)
 * must not hang in a close that waits on an unreachable API server or on the thread that called
 * {@code System.exit}. If the orderly steps have not finished within the bound, the process halts,
 * so that the kubelet (or the soak's supervisor) starts it afresh and it can never act on as a
 * second leader.
 */
final class BoundedShutdown {
  private static final Logger log = LoggerFactory.getLogger(BoundedShutdown.class);

  private BoundedShutdown() {}

  /** A shutdown-hook body: runs {@code steps}, halting with {@code code} through {@code halt} if they take too long. */
  static Runnable of(Runnable steps, Duration bound, int code, IntConsumer halt) {
    return () -> {
      Thread watchdog = new Thread(() -> {
        try {
          Thread.sleep(bound.toMillis()); // the bound itself: not a synchronisation
        } catch (InterruptedException finished) {
          return;
        }
        log.error("shutdown did not finish within {}; halting", bound);
        halt.accept(code);
      }, "shutdown-watchdog");
      watchdog.setDaemon(true);
      watchdog.start();
      try {
        steps.run();
      } finally {
        watchdog.interrupt();
      }
    };
  }
}
