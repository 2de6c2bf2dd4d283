package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.support.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Soak seeds that once failed, kept as tests: each replays only the round that failed (its graph,
 * fault and fault instant come from the seed; the timing of the cluster does not, so a race may need
 * the seed's round run a few times to show). How to add one: CONTRIBUTING.md "The chaos soak".
 *
 * <p>A seed names a round of the generator as it was when the seed was found: a commit that changes
 * how {@link Generator} or {@link Soak} draw from the seed changes what every seed gives, and must
 * say so and keep what each fixed seed tested (as an {@link OracleTest} case, or a seed that gives
 * that graph again).
 */
class SoakSeedsIT {

  /**
   * A seed the soak failed on: the settings it ran with, the round, and what it found (the
   * violation, the commit, the fix).
   */
  record Fixed(long seed, int scenarios, int maxObjects, int round, String found) {}

  /** One line per seed that failed, newest last. */
  static final List<Fixed> FIXED = List.of(
      new Fixed(-6507660803086475762L, 4, 12, 4, "d20e381, APF throttling, on-timeout Keep: a ring's entry member"
          + " completed by its own plan once the inner member it owns was released, and the root went while"
          + " ring7-2 and ring8-3 were left; fixed by releasing a ring farthest from its entry first"));

  @TestFactory
  Stream<DynamicTest> eachFixedSeedStillPasses() {
    return FIXED.stream().map(f -> DynamicTest.dynamicTest("seed " + f.seed() + " round " + f.round() + ": "
        + f.found(), () -> SoakIT.run(new Soak.Settings(f.seed(), Duration.ZERO, f.scenarios(), f.maxObjects(),
            f.round()), "0s", TestCluster.targetDir().resolve("soak-seed-" + f.seed() + "-r" + f.round() + ".md"))));
  }
}
