package dev.syncgc.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * The calls of one plan on an owner's dependents, sent {@link #MAX_IN_FLIGHT} at a time. Batch after
 * batch go out while the plan is younger than {@link #PLAN_USED_FOR}, the owner's deadline has not
 * passed, no call asked for a fresh plan and the workers were not stopped (a replica that stops leading
 * sends no more than the batch in flight); the rest is left for the next plan ({@link #more()}).
 *
 * <p>A later batch of a plan is as safe as its first: every call stands on the version of the object
 * it was planned on (uid and resourceVersion preconditions; the graph's seen-deleted and unseen-owner
 * checks just before it is sent), so a dependent that changed since is refused and planned again. A
 * plan looks at every remaining dependent: planning again after each batch made a wide owner's deletion
 * quadratic (wide 100,000: about 390 plans over 50,000 dependents on average).
 */
final class PlanCalls {
  /** Calls of one owner in flight at once. */
  static final int MAX_IN_FLIGHT = 256;
  /** How long a plan's calls go on being sent before the owner is planned again. */
  static final Duration PLAN_USED_FOR = Duration.ofSeconds(5);

  private final ParallelCalls pool;
  private final Clock clock;
  private final BooleanSupplier acting;
  private final Instant usableUntil;
  private final List<Callable<Next>> batch = new ArrayList<>();
  private Instant deadline;
  private Next result = Next.DONE;
  private boolean more;

  /** @param acting false once this replica may not write (its workers stopped, or it was paused) */
  PlanCalls(ParallelCalls pool, Clock clock, BooleanSupplier acting, Instant deadline) {
    this.pool = pool;
    this.clock = clock;
    this.acting = acting;
    this.usableUntil = clock.instant().plus(PLAN_USED_FOR);
    this.deadline = deadline;
  }

  /** The owner's deadline, once its deletion's start recorded it. */
  void deadline(Instant deadline) {
    this.deadline = deadline;
  }

  /** Adds a call; sends the batch first when it is full, or leaves the call for the next plan. */
  void add(Callable<Next> call) {
    if (more) {
      return;
    }
    if (batch.size() >= MAX_IN_FLIGHT) {
      if (!usable()) {
        more = true;
        return;
      }
      send();
    }
    batch.add(call);
  }

  /** Sends what is left; RETRY if any call of the plan asked for it. */
  Next finish() {
    send();
    return result;
  }

  /** Whether calls of this plan were left out: the owner must be planned again for them. */
  boolean more() {
    return more;
  }

  private boolean usable() {
    Instant now = clock.instant();
    return result == Next.DONE && acting.getAsBoolean() && now.isBefore(usableUntil)
        && (deadline == null || now.isBefore(deadline));
  }

  private void send() {
    if (pool.runAll(batch) == Next.RETRY) {
      result = Next.RETRY;
    }
    batch.clear();
  }
}
