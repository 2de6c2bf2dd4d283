package dev.syncgc.kube.reflector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.MetadataDecoder.Bookmark;
import dev.syncgc.kube.MetadataDecoder.Upserted;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InitialEventsTest {
  /**
   * The stream of a watch list goes on as the watch for minutes and keeps its InitialEvents: the set of
   * every listed uid must not stay with it (at 700,000 objects it was 712,854 HashMap nodes and a uid
   * string each, after the list was long in the graph).
   */
  @Test
  void theListedUidsAreHandedOverOnceAndNotKept() {
    InitialEvents initial = new InitialEvents();
    initial.take(new Upserted(object("a")));
    initial.take(new Upserted(object("b")));
    assertTrue(initial.take(new Bookmark(9, true)));

    assertEquals(Set.of("uid-a", "uid-b"), initial.takeHeld());
    assertEquals(Set.of(), initial.takeHeld(), "nothing kept once handed over");
    assertEquals(9, initial.at());
  }

  private static ObjectMetadata object(String name) {
    return new ObjectMetadata(new ObjectRef("v1", "ConfigMap", "ns", name, "uid-" + name), 5, List.of(), List.of(),
        null, null, Map.of(), Map.of());
  }
}
