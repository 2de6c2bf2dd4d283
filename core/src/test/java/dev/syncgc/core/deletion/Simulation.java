package dev.syncgc.core.deletion;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The property tests' view of {@link DeletionRun} (the code {@code kubectl syncgc preview} runs):
 * every object deleted by syncgc follows {@code Synchronous}, waves and {@code on-timeout} come from
 * annotations, and checks run before each step and at each removal.
 */
public final class Simulation {
  /** Called before steps are applied, with the objects as the planner saw them. */
  public interface Checks {
    void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen);

    /** @param unit the objects released together with it (a ring), itself included */
    void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before, Map<String, ObjectMetadata> after);

    /** Checks nothing. */
    Checks NONE = new Checks() {
      @Override
      public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {}

      @Override
      public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
          Map<String, ObjectMetadata> after) {}
    };
  }

  private static final DeletionSettings SYNCHRONOUS =
      DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS);

  private final DeletionRun run;

  public Simulation(List<ObjectMetadata> world, Checks checks) {
    run = new DeletionRun(new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1)), TestObjects.graph(),
        world, o -> DeletionSettings.fromAnnotations(o.annotations()).orElse(SYNCHRONOUS), Worlds.NOW,
        new DeletionRun.Listener() {
          @Override
          public void planned(ObjectMetadata owner, List<Step> steps, Map<String, ObjectMetadata> seen) {
            checks.planned(owner, steps, seen);
          }

          @Override
          public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
              Map<String, ObjectMetadata> after) {
            checks.removed(uid, unit, before, after);
          }
        });
  }

  /**
   * The user deletes {@code root} and the whole deletion is played (no time passes: a deadline never
   * comes), other controllers' holds released once it settles; the uids removed, in order.
   */
  public static List<String> played(List<ObjectMetadata> world, String root) {
    Simulation sim = new Simulation(world, Checks.NONE);
    sim.delete(root);
    sim.run(200);
    sim.releaseHolds();
    sim.run(200);
    return sim.removed();
  }

  public static int wave(ObjectMetadata o) {
    return DeletionSettings.fromAnnotations(o.annotations()).wave();
  }

  public Map<String, ObjectMetadata> objects() {
    return run.objects();
  }

  public List<String> removed() {
    return run.removed();
  }

  /** The user deletes an opted-in object. */
  public void delete(String uid) {
    run.delete(uid);
  }

  /** Other controllers let go of everything they hold. */
  public void releaseHolds() {
    run.releaseForeignFinalizers(false);
  }

  /** Plans every object under synchronous deletion until nothing changes; false if it never settles. */
  public boolean run(int maxPasses) {
    return run.run(maxPasses);
  }
}
