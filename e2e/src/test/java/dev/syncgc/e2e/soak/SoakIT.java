package dev.syncgc.e2e.soak;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.syncgc.e2e.support.BuiltInCollector;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The chaos soak. Short by default (one round per {@link Faults.Fault}, NONE included: 7 rounds of 4
 * scenarios, trees of at most 12 objects; ~3 minutes); {@code make soak}
 * runs it long and writes docs/soak.md. System properties: {@code syncgc.soak.seed} (replay;
 * drawn at random and printed first when absent), {@code syncgc.soak.round} (replay that round only),
 * {@code syncgc.soak.duration} (e.g. {@code 30m}), {@code syncgc.soak.scenarios} (per round),
 * {@code syncgc.soak.objects} (the most objects of one tree), {@code syncgc.soak.report} (where the
 * report goes; default target/soak-report.md), {@code syncgc.soak.uses} ({@code wide}, the default: see {@link Soak.Uses};
 * {@code all}: inside one synchronous cascade only; {@code acyclic}: those but on a cycle of use; {@code none}). A seed that failed is kept as a test in
 * {@link SoakSeedsIT}.
 */
class SoakIT {

  @Test
  void randomOwnershipGraphsUnderFaultsKeepEveryInvariant() throws Exception {
    String seedText = System.getProperty("syncgc.soak.seed", "");
    long seed = seedText.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(seedText);
    Soak.Settings settings = new Soak.Settings(seed, duration(System.getProperty("syncgc.soak.duration", "0s")),
        Integer.getInteger("syncgc.soak.scenarios", 4), Integer.getInteger("syncgc.soak.objects", 12),
        Integer.getInteger("syncgc.soak.round", 0),
        uses(System.getProperty("syncgc.soak.uses", "wide")));
    run(settings, System.getProperty("syncgc.soak.duration", "0s"), Path.of(System.getProperty("syncgc.soak.report",
        TestCluster.targetDir().resolve("soak-report.md").toString())));
  }

  /** Runs the soak and fails on a violation or on a fault that did nothing; the seed is printed first. */
  static void run(Soak.Settings settings, String durationText, Path reportFile) throws Exception {
    assumeTrue(TestCluster.get().isLocal(), "the soak restarts etcd and kube-apiserver of e2e/cluster.sh and"
        + " reads their audit log: it runs on the local control plane only (unset KUBECONFIG)");
    BuiltInCollector.assumeRunning("the soak's model includes the built-in collector (Background and foreground"
        + " deletions, the API server's orphaning, what it removes and keeps)");
    long seed = settings.seed();
    String replay = "make soak SOAK_ARGS=\"-Dsyncgc.soak.seed=" + seed + " -Dsyncgc.soak.duration=" + durationText
        + " -Dsyncgc.soak.scenarios=" + settings.scenarios() + " -Dsyncgc.soak.objects=" + settings.maxObjects()
        + (settings.round() > 0 ? " -Dsyncgc.soak.round=" + settings.round() : "")
        + (settings.uses() == Soak.Uses.WIDE ? "" : " -Dsyncgc.soak.uses=" + settings.uses().name().toLowerCase(
            java.util.Locale.ROOT)) + "\"";
    System.out.println("[soak] seed " + seed + "; replay: " + replay
        + " (one round of it: add -Dsyncgc.soak.round=N)");
    SharedOperator.pause(); // the soak's two replicas are the only operators while it runs
    SoakReport report;
    try {
      report = new Soak(settings, TestCluster.get().client(), System.out).run();
    } finally {
      SharedOperator.resume();
    }
    report.command = replay;
    report.write(reportFile);
    System.out.println(report.markdown());
    assertTrue(report.violations.isEmpty(), report.violations.size() + " violations (seed " + seed + "), see "
        + reportFile + ":\n" + String.join("\n", report.violations));
    assertTrue(report.notExercised().isEmpty(), "rounds " + report.notExercised() + " injected a throttle that"
        + " answered no request 429: they tested nothing (seed " + seed + "), see " + reportFile);
    assertTrue(report.usageFloorMet(), "only " + report.usagePairsJudged() + " usage pairs judged in "
        + report.rounds.size() + " rounds (floor " + SoakReport.USAGE_FLOOR_PER_ROUND + " a round, usage edges"
        + " " + settings.uses() + "): the generator drew too few edges, or the checks found too few of their ends in"
        + " etcd's record (seed " + seed + "), see " + reportFile);
    assertTrue(report.inFlightFloorMet(), "only " + report.struckInFlight() + " of " + report.struck() + " faults struck"
        + " while a deletion was in flight (floor " + SoakReport.IN_FLIGHT_FLOOR_PERCENT + " %): the soak's faults"
        + " came too late to test anything (seed " + seed + "), see " + reportFile);
  }

  /** {@code wide}, {@code all}, {@code acyclic} or {@code none}, any case. */
  static Soak.Uses uses(String text) {
    try {
      return Soak.Uses.valueOf(text.strip().toUpperCase(java.util.Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("syncgc.soak.uses: " + text + " (use wide, all, acyclic or none)", e);
    }
  }

  /** {@code 90s}, {@code 30m}, {@code 2h}. */
  static Duration duration(String text) {
    String t = text.trim();
    long n = Long.parseLong(t.substring(0, t.length() - 1));
    return switch (t.charAt(t.length() - 1)) {
      case 's' -> Duration.ofSeconds(n);
      case 'm' -> Duration.ofMinutes(n);
      case 'h' -> Duration.ofHours(n);
      default -> throw new IllegalArgumentException("syncgc.soak.duration: " + text + " (use 90s, 30m or 2h)");
    };
  }
}
