package dev.syncgc.e2e;

import static dev.syncgc.e2e.support.ObjectAwaits.SETUP_DEADLINE;
import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.GRACE_PERIOD;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static dev.syncgc.e2e.support.SpecNames.TIMEOUT;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.support.DeletionOrder;
import dev.syncgc.e2e.support.Events;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ObjectAwaits;
import dev.syncgc.e2e.support.RunningOperator;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestNamespace;
import dev.syncgc.e2e.support.Widgets;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Invalid input never crashes or stalls the operator: bad annotation values are reported and
 * ignored, owner references Kubernetes considers invalid are never followed. After every test the
 * shared operator is still running and logged no failed sync.
 */
@ExtendWith(TestNamespace.Extension.class)
class InvalidInputIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  /** How long "no finalizer" or "survives" must hold once the operator has shown it saw the object. */
  private static final Duration STEADY = Duration.ofSeconds(3);

  private final KubernetesClient client = TestCluster.get().client();
  private RunningOperator operator;
  private int logMark;

  @BeforeEach
  void operator() {
    operator = SharedOperator.get();
    logMark = operator.log().length();
  }

  @AfterEach
  void operatorStillHealthy() {
    assertTrue(operator.isAlive(), "operator still running");
    String log = operator.log();
    String during = log.substring(Math.min(logMark, log.length()));
    List<String> failures = during.lines().filter(l -> l.contains("sync failed"))
        .collect(Collectors.toList());
    assertEquals(List.of(), failures, "no failed sync in the operator's log during the test");
  }

  @Test
  void unknownPropagationGetsNoFinalizerAndInvalidAnnotationEventNamingTheValue(TestNamespace ns) {
    GenericKubernetesResource widget = Widgets.create(client, ns.name(), "sideways")
        .annotate(PROPAGATION, "Sideways").apply();

    Events.awaitContaining(client, widget, "Warning", "InvalidAnnotation", PROPAGATION,
        "Sideways");
    assertStaysWithoutFinalizer(widget);
  }

  @Test
  void unparsableTimeoutGetsInvalidAnnotationEventNamingTheValue(TestNamespace ns) {
    assertInvalidAnnotationReported(ns, "soon", TIMEOUT, "soon");
  }

  @Test
  void negativeGracePeriodGetsInvalidAnnotationEventNamingTheValue(TestNamespace ns) {
    assertInvalidAnnotationReported(ns, "negative", GRACE_PERIOD, "-3");
  }

  @Test
  void nonNumericGracePeriodGetsInvalidAnnotationEventNamingTheValue(TestNamespace ns) {
    assertInvalidAnnotationReported(ns, "letters", GRACE_PERIOD, "abc");
  }

  @Test
  void validOwnerCreatedAfterInvalidAnnotationsIsStillDeletedSynchronously(TestNamespace ns) {
    GenericKubernetesResource sideways = Widgets.create(client, ns.name(), "sideways")
        .annotate(PROPAGATION, "Sideways").apply();
    GenericKubernetesResource soon = synchronousWith(ns, "soon", TIMEOUT, "soon");
    GenericKubernetesResource negative = synchronousWith(ns, "negative", GRACE_PERIOD, "-3");
    GenericKubernetesResource letters = synchronousWith(ns, "letters", GRACE_PERIOD, "abc");
    Events.awaitContaining(client, sideways, "Warning", "InvalidAnnotation", "Sideways");
    Events.awaitContaining(client, soon, "Warning", "InvalidAnnotation", "soon");
    Events.awaitContaining(client, negative, "Warning", "InvalidAnnotation", "-3");
    Events.awaitContaining(client, letters, "Warning", "InvalidAnnotation", "abc");

    try (DeletionOrder deletions = DeletionOrder.widgets(client, ns.name())) {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "valid").synchronous()
          .applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "dependent")
          .ownedBy(owner).apply();

      Widgets.widget(client, ns.name(), "valid").delete();

      long ownerGone = deletions.awaitDeleted(DEADLINE, owner).resourceVersion();
      long dependentGone = deletions.awaitDeleted(DEADLINE, dependent).resourceVersion();
      assertTrue(dependentGone < ownerGone, "dependent deleted before the owner");
    }
  }

  @Test
  void ownerWithValidSettingKeepsFinalizerWhenPropagationBecomesInvalid(TestNamespace ns) {
    GenericKubernetesResource widget = Widgets.create(client, ns.name(), "owner").synchronous()
        .applyAndAwaitFinalizer(SETUP_DEADLINE);

    Widgets.widget(client, ns.name(), "owner").edit(w -> {
      w.getMetadata().getAnnotations().put(PROPAGATION, "Sideways");
      return w;
    });

    Events.awaitContaining(client, widget, "Warning", "InvalidAnnotation", PROPAGATION,
        "Sideways");
    await("finalizer kept").during(STEADY).atMost(STEADY.plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> ObjectAwaits.hasFinalizer(ObjectAwaits.current(client, widget), FINALIZER));
  }

  /**
   * Kubernetes treats a namespaced owner in another namespace as absent, so the dependent also has
   * a solid owner in its own namespace: otherwise the built-in collector would delete it. Beside the
   * solid owner the collector removes the invalid reference instead, 3-6 ms after the create: the
   * Event must come from the version syncgc observed, not from the one a worker reads later
   * (InvalidOwnerReferenceReportTest puts the events in that order).
   */
  @Test
  void dependentOfOwnerInOtherNamespaceSurvivesOwnerDeletionAndGetsInvalidOwnerReferenceEvent(
      TestNamespace ns) {
    String other = Namespaces.create(client, "InvalidInputIT#crossNamespace, namespace B");
    try {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .applyAndAwaitFinalizer(SETUP_DEADLINE);
      GenericKubernetesResource solid = Widgets.create(client, other, "solid").apply();
      GenericKubernetesResource dependent = Widgets.create(client, other, "dependent")
          .ownedBy(owner).ownedBy(solid).apply();
      assertInvalidReferenceNotFollowed(owner, dependent, solid);
    } finally {
      Namespaces.deleteAsync(client, other);
    }
  }

  /** With a solid cluster-scoped owner too, for the same reason as above. */
  @Test
  void clusterScopedDependentOfNamespacedOwnerIsNotDeletedWithItAndGetsInvalidOwnerReferenceEvent(
      TestNamespace ns) {
    String prefix = ns.name() + "-";
    GenericKubernetesResource solid = null;
    GenericKubernetesResource dependent = null;
    try {
      GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
          .applyAndAwaitFinalizer(SETUP_DEADLINE);
      solid = Widgets.createCluster(client, prefix + "solid").apply();
      dependent = Widgets.createCluster(client, prefix + "dependent").ownedBy(owner).ownedBy(solid)
          .apply();
      assertInvalidReferenceNotFollowed(owner, dependent, solid);
    } finally {
      for (HasMetadata o : new HasMetadata[] {dependent, solid}) {
        if (o != null) {
          Widgets.clusterWidget(client, o.getMetadata().getName()).delete();
        }
      }
    }
  }

  /**
   * A cluster-scoped dependent of a cluster-scoped Synchronous owner that also names
   * a namespaced owner. The built-in collector never collects it (the namespaced reference cannot be
   * resolved), so syncgc must not delete it through its valid owner either: the owner goes, the
   * dependent survives with only the reference the built-in collector cannot resolve.
   */
  @Test
  void clusterScopedDependentAlsoNamingANamespacedOwnerSurvivesItsClusterScopedOwner(TestNamespace ns) {
    String prefix = ns.name() + "-";
    GenericKubernetesResource dependent = null;
    try {
      GenericKubernetesResource namespaced = Widgets.create(client, ns.name(), "namespaced-owner").apply();
      GenericKubernetesResource owner = Widgets.createCluster(client, prefix + "owner").synchronous()
          .applyAndAwaitFinalizer(SETUP_DEADLINE);
      dependent = Widgets.createCluster(client, prefix + "dependent").ownedBy(owner).ownedBy(namespaced)
          .apply();
      Events.awaitContaining(client, dependent, "Warning", "InvalidOwnerReference",
          namespaced.getMetadata().getUid());

      Widgets.clusterWidget(client, owner.getMetadata().getName()).delete();

      ObjectAwaits.awaitGone(client, owner, DEADLINE);
      GenericKubernetesResource left = ObjectAwaits.current(client, dependent);
      assertTrue(left != null && left.getMetadata().getDeletionTimestamp() == null,
          "the dependent was deleted through its cluster-scoped owner: " + left);
      assertSurvives(dependent);
      assertEquals(List.of(namespaced.getMetadata().getUid()), ownerUids(dependent),
          "only the reference to the deleted owner is removed");
    } finally {
      if (dependent != null) {
        Widgets.clusterWidget(client, dependent.getMetadata().getName()).delete();
      }
    }
  }

  /**
   * A reference to a kind the API server does not serve cannot be checked, so (as the built-in
   * collector does) its owner is presumed to keep the dependent.
   */
  @Test
  void dependentWithUnknownKindOwnerIsKeptAndLosesOnlyTheDeletedOwnersReference(TestNamespace ns) {
    GenericKubernetesResource owner = Widgets.create(client, ns.name(), "owner").synchronous()
        .applyAndAwaitFinalizer(SETUP_DEADLINE);
    OwnerReference unknown = new OwnerReferenceBuilder().withApiVersion("example.com/v1")
        .withKind("Nope").withName("ghost").withUid(UUID.randomUUID().toString()).build();
    GenericKubernetesResource dependent = Widgets.create(client, ns.name(), "dependent")
        .ownedBy(owner).ownedBy(unknown).apply();

    Widgets.widget(client, ns.name(), "owner").delete();

    ObjectAwaits.awaitGone(client, owner, DEADLINE);
    assertSurvives(dependent);
    assertEquals(List.of(unknown.getUid()), ownerUids(dependent),
        "only the reference to the deleted owner is removed");
  }

  /**
   * {@code dependent}'s reference to the Widget {@code owner} is reported invalid; deleting the
   * owner leaves the dependent, with its reference to {@code solid}.
   */
  private void assertInvalidReferenceNotFollowed(HasMetadata owner, HasMetadata dependent,
      HasMetadata solid) {
    Events.awaitContaining(client, dependent, "Warning", "InvalidOwnerReference",
        owner.getMetadata().getUid());

    Widgets.widget(client, owner.getMetadata().getNamespace(), owner.getMetadata().getName()).delete();

    ObjectAwaits.awaitGone(client, owner, DEADLINE);
    assertSurvives(dependent);
    assertTrue(ownerUids(dependent).contains(solid.getMetadata().getUid()),
        "the solid owner's reference is untouched");
    // the solid owner keeps the dependent either way; what shows the link was not followed is that
    // syncgc neither counted the dependent nor acted on it
    String started = Events.await(client, owner, "SynchronousDeletionStarted").getMessage();
    assertTrue(started.startsWith("Deleting 0 dependents"), "the invalid link is not counted: " + started);
    String ref = dependent.getKind() + "/" + (dependent.getMetadata().getNamespace() == null ? ""
        : dependent.getMetadata().getNamespace() + "/") + dependent.getMetadata().getName();
    List<String> acted = operator.log().lines().filter(l -> l.contains("object=" + ref + " ")
        && (l.contains("removed owner reference") || l.contains("deleted object"))).toList();
    assertEquals(List.of(), acted, "syncgc never acted on the dependent through the invalid link");
  }

  /** A Widget annotated Synchronous and {@code key: value} gets an Event naming both. */
  private void assertInvalidAnnotationReported(TestNamespace ns, String name, String key,
      String value) {
    GenericKubernetesResource widget = synchronousWith(ns, name, key, value);

    Events.awaitContaining(client, widget, "Warning", "InvalidAnnotation", key, value);
  }

  /** Creates a Widget annotated Synchronous and {@code key: value}. */
  private GenericKubernetesResource synchronousWith(TestNamespace ns, String name, String key,
      String value) {
    return Widgets.create(client, ns.name(), name).synchronous().annotate(key, value).apply();
  }

  private void assertStaysWithoutFinalizer(HasMetadata object) {
    await("no finalizer on " + object.getMetadata().getName()).during(STEADY)
        .atMost(STEADY.plusSeconds(5)).pollInterval(Duration.ofMillis(200))
        .until(() -> {
          GenericKubernetesResource now = ObjectAwaits.current(client, object);
          return now != null && !ObjectAwaits.hasFinalizer(now, FINALIZER);
        });
  }

  private void assertSurvives(HasMetadata object) {
    await(object.getMetadata().getName() + " survives").during(STEADY).atMost(STEADY.plusSeconds(5))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> {
          GenericKubernetesResource now = ObjectAwaits.current(client, object);
          return now != null && now.getMetadata().getDeletionTimestamp() == null;
        });
  }

  private List<String> ownerUids(HasMetadata object) {
    GenericKubernetesResource now = ObjectAwaits.current(client, object);
    assertFalse(now == null, object.getMetadata().getName() + " exists");
    return now.getMetadata().getOwnerReferences().stream().map(OwnerReference::getUid)
        .collect(Collectors.toList());
  }
}
