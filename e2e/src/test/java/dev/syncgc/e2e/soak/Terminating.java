package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Oracle.DeadlineRule;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * Invariant 3 for the scenarios with a short deadline: nothing is left in Terminating past its
 * bound plus {@link #SLACK}. With {@code Release} the bound is the deadline the operator recorded, or
 * the moment the last dependent that must go was gone if that came first, and the owner must not be
 * gone before its deadline while one of them remains; with {@code Keep} the bound is the moment the
 * last of them was gone, and the owner must not be gone while one remains. Pure: the
 * times come from etcd's watch (when the soak saw each DELETE) and the audit log (the deadline).
 */
final class Terminating {
  /**
   * What a fault may add between the bound and the owner's deletion: a SIGKILLed leader's Lease
   * runs out (8 s here) before the other replica leads, which then loads the policies, rebuilds its graph
   * from a LIST and plans again (a restarted JVM on this 2-core machine: ~10 s); a kube-apiserver
   * restart takes ~20 s and may cost a replica its Lease; APF answers 429 to most requests, retried
   * with backoff. 60 s covers each with room; the report gives the largest lateness seen.
   */
  static final Duration SLACK = Duration.ofSeconds(60);

  /**
   * @param violation what does not hold, or null
   * @param lateness the owner's deletion after its bound (negative: before), or null when not known
   * @param pastDeadline the owner was gone after its deadline (a Keep owner really was kept past it)
   */
  record Judgement(String violation, Duration lateness, boolean pastDeadline) {}

  private Terminating() {}

  /** A dependent of the rule not gone by {@code at} (gone later, or not at all), or null. */
  private static SoakObject remainingAt(DeadlineRule rule, Map<SoakObject, Instant> gone, Instant at) {
    for (SoakObject d : rule.dependents()) {
      Instant when = gone.get(d);
      if (when == null || when.isAfter(at)) {
        return d;
      }
    }
    return null;
  }

  /**
   * @param deadline the owner's deadline
   * @param ownerGone when the owner was gone, or null if it is not
   * @param gone when each dependent of the rule was gone (absent: not gone)
   * @param now the moment of the judgement
   */
  static Judgement judge(DeadlineRule rule, Instant deadline, Instant ownerGone, Map<SoakObject, Instant> gone,
      Instant now, Duration slack) {
    Instant lastDependent = Instant.MIN;
    SoakObject remaining = null;
    for (SoakObject d : rule.dependents()) {
      Instant at = gone.get(d);
      if (at == null) {
        remaining = d;
      } else if (at.isAfter(lastDependent)) {
        lastDependent = at;
      }
    }
    boolean pastDeadline = ownerGone != null && ownerGone.isAfter(deadline);
    SoakObject early = ownerGone != null && ownerGone.isBefore(deadline) ? remainingAt(rule, gone, ownerGone) : null;
    Instant bound;
    String why;
    if (rule.onTimeout() == Scenario.Deadline.KEEP) {
      if (remaining != null) {
        return new Judgement(ownerGone == null ? null : rule.owner() + " (on-timeout Keep) was gone at " + ownerGone
            + " while " + remaining + ", which must go, remains: a kept owner never goes before its dependents",
            null, pastDeadline);
      }
      bound = rule.dependents().isEmpty() ? deadline : lastDependent;
      why = "its last dependent was gone at " + bound;
    } else if (early != null) {
      // seen gone before its deadline (the soak sees a deletion after it happens, so it was earlier
      // still) while a dependent that must go was there: nothing may let it go then but completion
      return new Judgement(rule.owner() + " (on-timeout Release) was gone at " + ownerGone + ", before its deadline "
          + deadline + ", while " + early + ", which must go, remained: a Release owner goes before its deadline only"
          + " once its dependents are gone", Duration.between(deadline, ownerGone), false);
    } else if (remaining == null && !rule.dependents().isEmpty() && lastDependent.isBefore(deadline)) {
      bound = lastDependent;
      why = "its last dependent was gone at " + bound + ", before its deadline " + deadline;
    } else {
      bound = deadline;
      why = "its deadline was " + deadline;
    }
    Instant latest = bound.plus(slack);
    if (ownerGone == null) {
      return new Judgement(now.isAfter(latest) ? rule.owner() + " (on-timeout " + rule.onTimeout() + ") is still"
          + " Terminating at " + now + ", past its bound plus " + slack.toSeconds() + " s: " + why : null,
          null, false);
    }
    Duration lateness = Duration.between(bound, ownerGone);
    return new Judgement(ownerGone.isAfter(latest) ? rule.owner() + " (on-timeout " + rule.onTimeout() + ") was gone"
        + " at " + ownerGone + ", " + lateness.toMillis() + " ms after its bound, more than the slack of "
        + slack.toSeconds() + " s: " + why : null, lateness, pastDeadline);
  }
}
