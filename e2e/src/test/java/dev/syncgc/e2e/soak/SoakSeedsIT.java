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
 * the seed's round run a few times to show). How to add one: docs/testing.md "The chaos soak".
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
  record Fixed(long seed, int scenarios, int maxObjects, int round, Soak.Uses uses, String found) {}

  /** One line per seed that failed, newest last. */
  static final List<Fixed> FIXED = List.of(
      new Fixed(-6507660803086475762L, 4, 12, 4, Soak.Uses.NONE, "d20e381, APF throttling, on-timeout Keep: a"
          + " ring's entry member completed by its own plan once the inner member it owns was released, and the"
          + " root went while ring7-2 and ring8-3 were left; fixed by releasing a ring farthest from its entry first"),
      new Fixed(-4662751325265996879L, 4, 12, 2, Soak.Uses.ALL, "84a3aa0, no fault: n2-0 (under n1-0 and n1-3)"
          + " uses n1-2, which owns a ring of five whose leaf uses n1-3: a cycle of use and ownership through the"
          + " ring, but the ring counted as staying (a loop of owners), so n1-2 and n1-3 waited for their users"
          + " and the root for ever; fixed by WillGo (a ring under an owner that goes, kept by nothing else, goes)"),
      new Fixed(5448005833463982636L, 4, 12, 7, Soak.Uses.ALL, "882cb20, PAUSE_LEADER: n2-0 and n2-1 were shared"
          + " with n1-0, a dependent of the root another owner keeps; n1-0 counted as under deletion, so n1-4 and"
          + " n1-6 were raised to n1-5's wave 2 and went before n1-2; fixed in a426891 (WavesByUse: an object"
          + " outside the subtree waits on it only if every owner of it may go)"));

  @TestFactory
  Stream<DynamicTest> eachFixedSeedStillPasses() {
    return FIXED.stream().map(f -> DynamicTest.dynamicTest("seed " + f.seed() + " round " + f.round() + ": "
        + f.found(), () -> SoakIT.run(new Soak.Settings(f.seed(), Duration.ZERO, f.scenarios(), f.maxObjects(),
            f.round(), f.uses()), "0s", TestCluster.targetDir().resolve("soak-seed-" + f.seed() + "-r" + f.round() + ".md"))));
  }
}
