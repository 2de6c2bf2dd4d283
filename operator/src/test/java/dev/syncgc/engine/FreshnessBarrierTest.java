package dev.syncgc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.kube.TrackedKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the freshness check lists a kind, and when the owner's own watch already answers for it. */
class FreshnessBarrierTest {
  private static final TrackedKind ITEM = new TrackedKind("bench.syncgc.dev", "v1", "BenchItem", "benchitems", true);
  private static final TrackedKind CONFIG_MAP = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);

  private final List<String> listed = new ArrayList<>();
  private final List<ObjectMetadata> fed = new ArrayList<>();
  /** What the LIST of BenchItem finds: a dependent the watch has not delivered yet. */
  private final List<ObjectMetadata> unseenItems = new ArrayList<>();
  private long itemPosition;
  private long otherPosition;
  private final AtomicLong clock = new AtomicLong();

  private FreshnessBarrier barrier() {
    return new FreshnessBarrier(
        (kind, namespace, each) -> {
          listed.add(kind.kind() + "@" + namespace);
          if (kind.equals(ITEM)) {
            unseenItems.forEach(each);
          }
        },
        (kind, namespace) -> kind.equals(ITEM) ? itemPosition : otherPosition,
        Set.of(), (uid, version) -> false, (kind, object) -> fed.add(object), n -> { }, clock::incrementAndGet,
        Runnable::run, new ObjectStates());
  }

  @Test
  void theOwnersOwnWatchPastItsDeletionAnswersForItsKindWithoutAList() {
    FreshnessBarrier barrier = barrier();
    ObjectMetadata owner = deleted("owner", 100);
    barrier.deletionSeen(owner);
    itemPosition = 100;
    otherPosition = Long.MAX_VALUE; // another kind's watch position says nothing about this owner's version

    assertTrue(barrier.verify(owner, () -> List.of(ITEM, CONFIG_MAP)).isEmpty());
    assertEquals(List.of("ConfigMap@ns"), listed);
  }

  @Test
  void aWatchNotYetPastTheDeletionLeavesItToAListThatFindsWhatTheWatchHasNotDelivered() {
    FreshnessBarrier barrier = barrier();
    ObjectMetadata owner = deleted("owner", 100);
    barrier.deletionSeen(owner);
    itemPosition = 99;
    ObjectMetadata dependent = new ObjectMetadata(new ObjectRef("bench.syncgc.dev/v1", "BenchItem", "ns", "d",
        "uid-d"), 98, List.of(new OwnerLink("uid-owner", "bench.syncgc.dev/v1", "BenchItem", "owner")), List.of(),
        null, null, Map.of(), Map.of());
    unseenItems.add(dependent);

    assertTrue(barrier.verify(owner, () -> List.of(ITEM, CONFIG_MAP)).isEmpty());
    assertEquals(List.of("BenchItem@ns", "ConfigMap@ns"), listed);
    assertEquals(List.of(dependent), fed);
  }

  @Test
  void anOpaqueVersionIsNeverComparedSoTheKindIsListed() {
    FreshnessBarrier barrier = barrier();
    ObjectMetadata owner = deleted("owner", 0);
    barrier.deletionSeen(owner);
    itemPosition = Long.MAX_VALUE;

    barrier.verify(owner, () -> List.of(ITEM));
    assertEquals(List.of("BenchItem@ns"), listed);
  }

  @Test
  void theFirstVersionSeenDeletedCountsNotALaterOne() {
    FreshnessBarrier barrier = barrier();
    barrier.deletionSeen(deleted("owner", 100));
    ObjectMetadata later = deleted("owner", 150); // e.g. another controller's finalizer removed since
    barrier.deletionSeen(later);
    itemPosition = 120;

    barrier.verify(later, () -> List.of(ITEM));
    assertEquals(List.of(), listed);
  }

  private static ObjectMetadata deleted(String name, long version) {
    return new ObjectMetadata(new ObjectRef("bench.syncgc.dev/v1", "BenchItem", "ns", name, "uid-" + name), version,
        List.of(), List.of("syncgc.dev/GarbageCollectionInProgress"), Instant.parse("2026-11-25T23:00:00Z"), null,
        Map.of(), Map.of());
  }
}
