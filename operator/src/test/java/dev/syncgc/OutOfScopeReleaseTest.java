package dev.syncgc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.TrackedKind;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which objects a narrowed operator leaves to its workers, and which it releases at start-up. */
class OutOfScopeReleaseTest {
  private static final TrackedKind CONFIG_MAP = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);
  private static final TrackedKind WIDGET = new TrackedKind("test.syncgc.dev", "v1", "Widget", "widgets", true);
  private static final TrackedKind CLUSTER_WIDGET =
      new TrackedKind("test.syncgc.dev", "v1", "ClusterWidget", "clusterwidgets", false);

  private static ObjectMetadata object(TrackedKind kind, String namespace) {
    ObjectRef ref = new ObjectRef(kind.apiVersion(), kind.kind(), namespace, "x", "0b2c1f0e-1111-4222-8333-444455556666");
    return new ObjectMetadata(ref, 1, List.of(), List.of("syncgc.dev/GarbageCollectionInProgress"), null, null,
        Map.of(), Map.of());
  }

  @Test
  void everyNamespaceAndEveryTrackedKindIsLeftAloneWithoutListing() {
    var scope = new OutOfScopeRelease.Scope(gk -> true, Set.of());
    assertTrue(scope.coversEvery(CONFIG_MAP));
    assertTrue(scope.coversEvery(CLUSTER_WIDGET));
    assertNull(scope.outside(CONFIG_MAP, object(CONFIG_MAP, "a")));
  }

  @Test
  void aKindNoLongerTrackedIsListedAndItsObjectsReleased() {
    var scope = new OutOfScopeRelease.Scope(gk -> gk.equals(WIDGET.groupKind()), Set.of());
    assertFalse(scope.coversEvery(CONFIG_MAP));
    assertTrue(scope.outside(CONFIG_MAP, object(CONFIG_MAP, "a")).contains("kind ConfigMap is not among"));
    assertNull(scope.outside(WIDGET, object(WIDGET, "a")));
  }

  @Test
  void namespacedKindsAreListedEverywhereWhenNamespacesAreRestrictedButClusterScopedOnesAreNot() {
    var scope = new OutOfScopeRelease.Scope(gk -> true, Set.of("a"));
    assertFalse(scope.coversEvery(WIDGET));
    assertTrue(scope.coversEvery(CLUSTER_WIDGET));
    assertNull(scope.outside(WIDGET, object(WIDGET, "a")));
    assertEquals("no longer tracked: namespace b is not among the namespaces syncgc watches",
        scope.outside(WIDGET, object(WIDGET, "b")));
  }
}
