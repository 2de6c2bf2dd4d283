package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SlimItemStoreTest {
  private final SlimItemStore store = new SlimItemStore("example.com/v1", "Widget");

  private static GenericKubernetesResource item(String namespace, String name, String uid, String rv) {
    GenericKubernetesResource r = new GenericKubernetesResource();
    r.setApiVersion("example.com/v1");
    r.setKind("Widget");
    r.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withName(name).withUid(uid)
        .withResourceVersion(rv).build());
    r.setAdditionalProperty("spec", java.util.Map.of("big", "x".repeat(1000)));
    return r;
  }

  private GenericKubernetesResource put(GenericKubernetesResource r) {
    return store.put(store.getKey(r), r);
  }

  @Test
  void keepsIdentityAndResourceVersionOfNamespacedAndClusterScopedObjects() {
    assertNull(put(item("ns-a", "w", "u1", "41")));
    assertNull(put(item(null, "c", "u2", "7")));
    GenericKubernetesResource got = store.get("ns-a/w");
    assertEquals("ns-a", got.getMetadata().getNamespace());
    assertEquals("w", got.getMetadata().getName());
    assertEquals("u1", got.getMetadata().getUid());
    assertEquals("41", got.getMetadata().getResourceVersion());
    assertEquals("Widget", got.getKind());
    assertEquals("example.com/v1", got.getApiVersion());
    assertNull(got.getAdditionalProperties().get("spec"), "spec is never kept");
    GenericKubernetesResource cluster = store.get("c");
    assertNull(cluster.getMetadata().getNamespace());
    assertEquals("u2", cluster.getMetadata().getUid());
    assertEquals(2, store.size());
    assertEquals(Set.of("ns-a/w", "c"), store.keySet().collect(Collectors.toSet()));
    assertEquals(Set.of("u1", "u2"), store.values().map(r -> r.getMetadata().getUid()).collect(Collectors.toSet()));
  }

  @Test
  void putReturnsThePreviousVersionAndRemoveTheLast() {
    put(item("ns", "w", "u1", "1"));
    GenericKubernetesResource previous = put(item("ns", "w", "u1", "2"));
    assertEquals("1", previous.getMetadata().getResourceVersion());
    assertEquals(1, store.size());
    GenericKubernetesResource removed = store.remove("ns/w");
    assertEquals("2", removed.getMetadata().getResourceVersion());
    assertEquals(0, store.size());
    assertNull(store.get("ns/w"));
    assertNull(store.remove("ns/w"), "removing twice");
    assertEquals(List.of(), store.keySet().toList());
  }

  @Test
  void aResourceVersionThatIsNotAPlainNumberIsKeptAsText() {
    for (String rv : List.of("007", "0", "12a", "", "99999999999999999999", "18446744073709551615")) {
      put(item("ns", "w", "u", rv));
      assertEquals(rv, store.get("ns/w").getMetadata().getResourceVersion(), rv);
    }
    assertEquals(123, SlimItemStore.decimal("123"));
    assertEquals(-1, SlimItemStore.decimal("0123"));
    assertEquals(0, SlimItemStore.decimal("0"));
  }

  @Test
  void theNameInstanceIsTheObjectsOwn() {
    GenericKubernetesResource r = item("ns", "w", "u", "1");
    put(r);
    assertSame(r.getMetadata().getName(), store.get("ns/w").getMetadata().getName());
  }

  @Test
  void anEmptiedNamespaceLeavesNothingBehindAndCanBeFilledAgain() {
    put(item("gone", "a", "u1", "1"));
    store.remove("gone/a");
    put(item("gone", "b", "u2", "2"));
    assertEquals(Set.of("gone/b"), store.keySet().collect(Collectors.toSet()));
  }

  @Test
  void holdsTheObjectWithThisUidUnderItsNameOnly() {
    put(item("ns", "w", "u1", "1"));
    put(item(null, "c", "u2", "2"));
    assertTrue(store.holds("ns", "w", "u1"));
    assertTrue(store.holds(null, "c", "u2"));
    assertFalse(store.holds("ns", "w", "other"), "another object under the name: the one asked about is gone");
    assertFalse(store.holds("ns", "x", "u1"));
    assertFalse(store.holds("other", "w", "u1"));
    put(item("ns", "w", "u3", "3")); // recreated under the name (a relist)
    assertFalse(store.holds("ns", "w", "u1"));
    store.remove("ns/w");
    assertFalse(store.holds("ns", "w", "u3"));
  }
}
