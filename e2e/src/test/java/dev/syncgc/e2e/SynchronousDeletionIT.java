package dev.syncgc.e2e;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An owner annotated Synchronous disappears only after its whole tree, leaves first. */
@ExtendWith({TestNamespace.Extension.class, SharedOperator.Extension.class})
class SynchronousDeletionIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final Duration FAN_OUT_DEADLINE = Duration.ofSeconds(120);
  private final KubernetesClient client = TestCluster.get().client();

  @Test
  void dependentIsDeletedBeforeItsOwner(TestNamespace ns) {
    GenericKubernetesResource owner =
        Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
    Widgets.create(client, ns.name(), "dependent").ownedBy(owner).apply();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "owner").delete();

      order.awaitDeleted(DEADLINE, "owner", "dependent");
      order.assertBefore("dependent", "owner");
      order.checkWatches();
    }
    assertNull(Widgets.widget(client, ns.name(), "dependent").get());
    assertNull(Widgets.widget(client, ns.name(), "owner").get());
  }

  @Test
  void chainOfThreeLevelsIsDeletedLeafThenMidThenRoot(TestNamespace ns) {
    GenericKubernetesResource root =
        Widgets.create(client, ns.name(), "root").synchronous().applyAndAwaitFinalizer();
    GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid").ownedBy(root).apply();
    Widgets.create(client, ns.name(), "leaf").ownedBy(mid).apply();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "root").delete();

      order.awaitDeleted(DEADLINE, "root", "mid", "leaf");
      order.checkWatches();
      assertEquals(List.of("leaf", "mid", "root"), order.names(), "order of deletion");
    }
  }

  @Test
  void fanOutOfFiveHundredDependentsIsDeletedBeforeOwnerWithCompletedEvent(TestNamespace ns)
      throws Exception {
    int count = 500;
    GenericKubernetesResource owner =
        Widgets.create(client, ns.name(), "owner").synchronous().applyAndAwaitFinalizer();
    List<String> dependents = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      dependents.add(String.format("dependent-%03d", i));
    }
    createAll(ns, owner, dependents);
    await("all " + count + " dependents listed").atMost(DEADLINE).until(() ->
        TestCrds.widgets(client).inNamespace(ns.name()).list().getItems().size() == count + 1);

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "owner").delete();

      List<String> all = new ArrayList<>(dependents);
      all.add("owner");
      order.awaitDeleted(FAN_OUT_DEADLINE, all.toArray(String[]::new));
      order.checkWatches();
      List<String> names = order.names();
      assertEquals(count + 1, names.size(), "one deletion per object: " + names);
      assertEquals("owner", names.get(names.size() - 1), "the owner is deleted last");
    }
    assertTrue(TestCrds.widgets(client).inNamespace(ns.name()).list().getItems().isEmpty(),
        "no Widget left");
    Event completed = Events.await(client, owner, "SynchronousDeletionCompleted");
    assertEquals("Normal", completed.getType());
  }

  @Test
  void diamondIsDeletedBottomUpOnceWithoutDependencyCycleEvent(TestNamespace ns) {
    // a owns b and c; b and c both own d
    GenericKubernetesResource a =
        Widgets.create(client, ns.name(), "a").synchronous().applyAndAwaitFinalizer();
    GenericKubernetesResource b = Widgets.create(client, ns.name(), "b").ownedBy(a).apply();
    GenericKubernetesResource c = Widgets.create(client, ns.name(), "c").ownedBy(a).apply();
    GenericKubernetesResource d = Widgets.create(client, ns.name(), "d").ownedBy(b).ownedBy(c).apply();

    try (DeletionOrder order = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "a").delete();

      order.awaitDeleted(DEADLINE, "a", "b", "c", "d");
      // the final SynchronousDeletionCompleted Event comes after any DependencyCycle Event
      Events.await(client, a, "SynchronousDeletionCompleted");
      order.checkWatches();

      assertEquals(1, order.count("d"), "d deleted once: " + order.deletions());
      assertEquals(d.getMetadata().getUid(),
          order.deletions().get(order.position("d")).uid(), "the d that was created");
      order.assertBefore("d", "b");
      order.assertBefore("d", "c");
      order.assertBefore("b", "a");
      order.assertBefore("c", "a");
      assertEquals(4, order.deletions().size(), "nothing else deleted: " + order.deletions());
    }
    assertTrue(TestCrds.widgets(client).inNamespace(ns.name()).list().getItems().isEmpty(),
        "no Widget left");
    List<Event> cycles = Events.withReason(client, ns.name(), "DependencyCycle");
    assertTrue(cycles.isEmpty(), "a diamond is not a cycle, but:\n" + Events.describe(cycles));
  }

  private void createAll(TestNamespace ns, GenericKubernetesResource owner, List<String> names)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(16);
    try {
      List<Future<?>> created = new ArrayList<>();
      for (String name : names) {
        created.add(pool.submit(() -> Widgets.create(client, ns.name(), name).ownedBy(owner).apply()));
      }
      for (Future<?> f : created) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
