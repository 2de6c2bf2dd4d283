package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.MetadataPatches;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * SPEC "What a deadline does": with {@code syncgc.dev/on-timeout: Keep} the owner outlives its
 * deadline, marked as deleted, until its dependents are gone or the annotation says Release. The
 * class runs its own operator, so that the timed-out count is its deletions' alone.
 */
@ExtendWith(TestNamespace.Extension.class)
class OnTimeoutKeepIT {
  private static final String ON_TIMEOUT = "syncgc.dev/on-timeout";
  private static final String NEVER = "example.com/never";
  private static final Pattern TIMED_OUT = Pattern.compile(
      "(?m)^syncgc_deletions_finished_total\\{[^}]*outcome=\"timed_out\"[^}]*}\\s+(\\S+)");
  private static OperatorProcess operator;

  private final KubernetesClient client = TestCluster.get().client();

  @BeforeAll
  static void ownOperator() {
    SharedOperator.pause();
    operator = OperatorProcess.startReady("on-timeout-keep", SharedOperator.ARGS);
  }

  @AfterAll
  static void sharedAgain() {
    operator.close();
    SharedOperator.resume();
  }

  private double timedOutCount() {
    Matcher m = TIMED_OUT.matcher(operator.metrics());
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private GenericKubernetesResource keptOwner(TestNamespace ns) {
    return Widgets.create(client, ns.name(), "owner").synchronous().annotate(TIMEOUT, "4s")
        .annotate(ON_TIMEOUT, "Keep").applyAndAwaitFinalizer(SETUP_DEADLINE);
  }

  @Test
  void keptOwnerStaysPastItsDeadlineReportedOnceAndGoesWhenTheBlockerClears(TestNamespace ns) {
    double before = timedOutCount();
    GenericKubernetesResource owner = keptOwner(ns);
    GenericKubernetesResource blocker = Widgets.create(client, ns.name(), "blocker").ownedBy(owner)
        .finalizer(NEVER).apply();
    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      Widgets.widget(client, ns.name(), "owner").delete();

      Event timedOut = Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut",
          "Keep", "Widget/" + ns.name() + "/blocker", NEVER);
      // the blockers keep being reported after the deadline (the operator's interval is 5 s)
      Events.awaitContaining(client, owner, "Normal", "WaitingForDependents", "past the deadline",
          "Widget/" + ns.name() + "/blocker");
      GenericKubernetesResource now = ObjectAwaits.current(client, owner);
      assertNotNull(now, "kept past its 4 s deadline");
      assertNotNull(now.getMetadata().getDeletionTimestamp());
      assertEquals(1.0, timedOutCount() - before, "counted once");
      assertEquals(1, Events.bySyncgc(client, owner).stream()
          .filter(e -> "SynchronousDeletionTimedOut".equals(e.getReason()))
          .mapToInt(e -> e.getCount() == null ? 1 : e.getCount()).sum(), "reported once: " + timedOut.getMessage());

      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);

      deletions.awaitDeleted(Duration.ofSeconds(30), owner);
      deletions.assertBefore("blocker", "owner");
      assertEquals(1.0, timedOutCount() - before, "still counted once");
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);
    }
  }

  @Test
  void keptOwnerGoesOnceTheAnnotationSaysRelease(TestNamespace ns) {
    GenericKubernetesResource owner = keptOwner(ns);
    GenericKubernetesResource blocker = Widgets.create(client, ns.name(), "blocker").ownedBy(owner)
        .finalizer(NEVER).apply();
    try {
      Widgets.widget(client, ns.name(), "owner").delete();
      Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut", "Keep");
      assertTrue(ObjectAwaits.exists(client, owner), "kept after the timeout");

      MetadataPatches.annotate(Widgets.widget(client, ns.name(), "owner"), ON_TIMEOUT, "Release");

      ObjectAwaits.awaitGone(client, owner, Duration.ofSeconds(30));
      assertTrue(ObjectAwaits.exists(client, blocker), "the blocker is still held by " + NEVER);
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);
    }
  }

  /**
   * A dependent the cascade finalized follows its owner's switch to Release (it
   * used to carry a copy of Keep and stayed, held by its own blocker, after the owner went).
   */
  @Test
  void switchingTheOwnerToReleaseReachesTheDependentsItsCascadeFinalized(TestNamespace ns) {
    GenericKubernetesResource owner = keptOwner(ns);
    GenericKubernetesResource mid = Widgets.create(client, ns.name(), "mid").ownedBy(owner).apply();
    Widgets.create(client, ns.name(), "blocker").ownedBy(mid).finalizer(NEVER).apply();
    try {
      Widgets.widget(client, ns.name(), "owner").delete();
      Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut", "Keep");
      assertTrue(ObjectAwaits.exists(client, mid), "the finalized dependent is kept with its owner");

      MetadataPatches.annotate(Widgets.widget(client, ns.name(), "owner"), ON_TIMEOUT, "Release");

      ObjectAwaits.awaitGone(client, owner, Duration.ofSeconds(30));
      ObjectAwaits.awaitGone(client, mid, Duration.ofSeconds(30));
      GenericKubernetesResource left = Widgets.widget(client, ns.name(), "blocker").get();
      assertNotNull(left, "the blocker is still held by " + NEVER);
      assertEquals(java.util.List.of(NEVER), left.getMetadata().getFinalizers(), "nothing of syncgc holds it");
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);
    }
  }

  /**
   * SPEC "Opting in" 2: a typo of {@code Keep} after the deletion began keeps the last valid setting
   * (recorded while the owner was alive) instead of the default {@code Release}, the bad value named
   * in a Warning.
   */
  @Test
  void aTypoOfKeepAfterTheDeletionBeganKeepsTheOwnerPastItsDeadline(TestNamespace ns) throws Exception {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .annotate(TIMEOUT, "3s").annotate(ON_TIMEOUT, "Keep").applyAndAwaitFinalizer(SETUP_DEADLINE);
    GenericKubernetesResource blocker = Widgets.create(client, ns.name(), "blocker").ownedBy(owner)
        .finalizer(NEVER).apply();
    try {
      Widgets.widget(client, ns.name(), "owner").delete();
      MetadataPatches.annotate(Widgets.widget(client, ns.name(), "owner"), ON_TIMEOUT, "Kep");

      Events.awaitContaining(client, owner, "Warning", "InvalidAnnotation", "syncgc.dev/on-timeout=\"Kep\"",
          "the last valid setting, Keep, stays in force");
      Events.awaitContaining(client, owner, "Warning", "SynchronousDeletionTimedOut", "Keep");
      Thread.sleep(2_000); // a Release deadline lets the owner go within a second
      GenericKubernetesResource now = ObjectAwaits.current(client, owner);
      assertNotNull(now, "kept past its 3 s deadline while its dependent remains");
      assertEquals("Kep", now.getMetadata().getAnnotations().get(ON_TIMEOUT));
      assertEquals("Keep", now.getMetadata().getAnnotations().get("syncgc.dev/last-valid-on-timeout"));

      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);
      ObjectAwaits.awaitGone(client, owner, Duration.ofSeconds(30));
      ObjectAwaits.awaitGone(client, blocker, Duration.ofSeconds(30));
    } finally {
      MetadataPatches.removeFinalizer(Widgets.widget(client, ns.name(), "blocker"), NEVER);
    }
  }
}
