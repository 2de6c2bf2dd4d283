package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The preview writes what the operator writes: the steps carry their writes, so a run on a graph
 * leaves the same annotations on each object as the operator's calls would.
 */
class DeletionRunTest {
  private static final Instant NOW = Instant.parse("2024-01-01T00:10:00Z");
  private final DeletionPlanner planner = new DeletionPlanner(Duration.ofSeconds(60), Duration.ofSeconds(1));

  /** Each object as it was just before it went. */
  private Map<String, ObjectMetadata> lastSeen(List<ObjectMetadata> world, String root) {
    Map<String, ObjectMetadata> last = new HashMap<>();
    DeletionRun run = new DeletionRun(planner, TestObjects.graph(), world,
        o -> DeletionSettings.fromAnnotations(o.annotations()), NOW, new DeletionRun.Listener() {
          @Override
          public void removed(String uid, Set<String> unit, Map<String, ObjectMetadata> before,
              Map<String, ObjectMetadata> after) {
            last.put(uid, before.get(uid));
          }
        });
    run.delete(root);
    assertTrue(run.run(20), "the run settles");
    assertEquals(world.size(), run.removed().size(), "everything went: " + run.objects());
    return last;
  }

  @Test
  void aDependentPutUnderSynchronousDeletionCarriesTheCascadesMarks() {
    List<ObjectMetadata> world = List.of(
        obj("o").annotate(Names.PROPAGATION, "Synchronous").annotate(Names.GRACE_PERIOD, "7")
            .annotate(Names.TIMEOUT, "5m").build(),
        obj("a").ownedBy("o").build(),
        obj("b").ownedBy("a").build());
    Map<String, ObjectMetadata> last = lastSeen(world, "o");
    ObjectMetadata a = last.get("a");
    assertEquals("o", a.annotation(Names.CASCADED_FROM));
    assertEquals(NOW.plus(Duration.ofMinutes(5)).toString(), a.annotation(Names.DEADLINE),
        "the owner's deadline, inherited");
    assertEquals("7", a.annotation(Names.INHERITED_GRACE_PERIOD), "the owner's grace period, for when it is gone");
    assertEquals(null, last.get("b").annotation(Names.CASCADED_FROM), "a leaf is deleted, not finalized");
  }

  @Test
  void theStartRecordsTheDeadlineAndHowManyDependentsThereWere() {
    List<ObjectMetadata> world = List.of(
        obj("o").annotate(Names.PROPAGATION, "Synchronous").annotate(Names.TIMEOUT, "5m").build(),
        obj("a").ownedBy("o").build(),
        obj("b").ownedBy("a").build());
    ObjectMetadata o = lastSeen(world, "o").get("o");
    assertEquals(NOW.plus(Duration.ofMinutes(5)).toString(), o.annotation(Names.DEADLINE));
    assertEquals("2", o.annotation(Names.DEPENDENTS_AT_START));
  }
}
