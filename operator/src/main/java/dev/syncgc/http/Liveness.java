package dev.syncgc.http;

import dev.syncgc.kube.reflector.Watches;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What {@code /healthz} answers: whether the operator is wedged, so that the kubelet restarts it.
 * Two signs, each only after its threshold (minutes by default), so that a slow operator is never
 * restarted while it still gets somewhere:
 *
 * <ul>
 *   <li><b>the watches have stopped</b>: not one of the tracked kinds' watches has been running
 *       for longer than {@code watchTimeout}. One kind's watch failing (a kind syncgc may not list,
 *       a conversion webhook down) is that kind's problem and is reported elsewhere; a restart would
 *       not fix it, so it never fails liveness. Judged only once start-up is over (the initial
 *       lists have their own bounds).
 *   <li><b>the workers make no progress while work is queued</b>: objects have been waiting in the
 *       queue, and no worker has finished a sync (successfully or not), for longer than
 *       {@code stallTimeout}. One slow sync does not count while other workers finish theirs; a
 *       throttled operator finishes syncs at its rate; a standby replica (workers not started) and
 *       an idle one (nothing waiting) are alive.
 * </ul>
 */
public final class Liveness {
  private static final Logger log = LoggerFactory.getLogger(Liveness.class);

  /**
   * The workers' progress, in {@link System#nanoTime()} units.
   *
   * @param workersStartedNanos when the workers started (meaningless when not running)
   * @param waiting objects ready to be synced that no worker has taken yet
   * @param waitingSinceNanos since when the queue of ready objects has been non-empty
   * @param lastDoneNanos when a worker last finished a sync
   */
  public record Work(boolean workersRunning, long workersStartedNanos, int waiting, long waitingSinceNanos,
      long lastDoneNanos) {}

  /** The answer, and why when it is no. */
  public record Verdict(boolean alive, String reason) {
    static final Verdict ALIVE = new Verdict(true, "ok");
  }

  private final Duration watchTimeout;
  private final Duration stallTimeout;
  private final LongSupplier nanoTime;
  private final BooleanSupplier started;
  private final Supplier<Watches> watches;
  private final Supplier<Work> work;
  /** Since when no watch has been running; null while one is. */
  private Long watchesDownSince;
  private boolean lastAlive = true;

  /**
   * @param started whether start-up is over (the graph is built); before, only the workers are judged
   */
  public Liveness(Duration watchTimeout, Duration stallTimeout, LongSupplier nanoTime, BooleanSupplier started,
      Supplier<Watches> watches, Supplier<Work> work) {
    this.watchTimeout = watchTimeout;
    this.stallTimeout = stallTimeout;
    this.nanoTime = nanoTime;
    this.started = started;
    this.watches = watches;
    this.work = work;
  }

  /** Reads the signals now and judges them; logs when the answer changes. */
  public synchronized Verdict check() {
    long now = nanoTime.getAsLong();
    Verdict verdict = judgeWork(work.get(), now, stallTimeout);
    if (started.getAsBoolean()) {
      Watches w = watches.get();
      if (w.reflectors() > 0 && w.watching() == 0) {
        if (watchesDownSince == null) {
          watchesDownSince = now;
        }
      } else {
        watchesDownSince = null;
      }
      if (verdict.alive()) {
        verdict = judgeWatches(w, watchesDownSince, now, watchTimeout);
      }
    }
    if (verdict.alive() != lastAlive) {
      lastAlive = verdict.alive();
      if (verdict.alive()) {
        log.info("liveness: healthy again");
      } else {
        log.error("liveness: failing, the kubelet will restart the operator reason=\"{}\"", verdict.reason());
      }
    }
    return verdict;
  }

  /** No progress while work waits, for longer than {@code stallTimeout}: wedged. */
  static Verdict judgeWork(Work w, long now, Duration stallTimeout) {
    if (!w.workersRunning() || w.waiting() == 0) {
      return Verdict.ALIVE;
    }
    // the latest of: the workers' start, the moment work started waiting, the last finished sync
    long since = latest(latest(w.workersStartedNanos(), w.waitingSinceNanos()), w.lastDoneNanos());
    long stalledNanos = now - since;
    if (stalledNanos > stallTimeout.toNanos()) {
      return new Verdict(false, "the workers made no progress for " + seconds(stalledNanos) + "s while "
          + w.waiting() + " objects wait (threshold " + stallTimeout.toSeconds() + "s)");
    }
    return Verdict.ALIVE;
  }

  /** Every watch down since {@code downSince} (null: one runs), for longer than {@code watchTimeout}: wedged. */
  static Verdict judgeWatches(Watches w, Long downSince, long now, Duration watchTimeout) {
    if (downSince == null || w.reflectors() == 0 || w.watching() > 0) {
      return Verdict.ALIVE;
    }
    long downNanos = now - downSince;
    if (downNanos > watchTimeout.toNanos()) {
      return new Verdict(false, "none of the " + w.reflectors() + " watches has run for " + seconds(downNanos)
          + "s (threshold " + watchTimeout.toSeconds() + "s)");
    }
    return Verdict.ALIVE;
  }

  private static long latest(long a, long b) {
    return a - b > 0 ? a : b; // nanoTime values: compare by difference
  }

  private static long seconds(long nanos) {
    return Duration.ofNanos(nanos).toSeconds();
  }
}
