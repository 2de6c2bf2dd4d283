package dev.syncgc.e2e.soak;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static dev.syncgc.e2e.support.SpecNames.PROPAGATION;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;

/** What a user does to a scenario's root, as kubectl would send it, retried through outages. */
final class Actions {
  /** How long the operator may take to let go of an owner whose opt-in was withdrawn. */
  private static final Duration LET_GO = Duration.ofSeconds(60);

  private final KubernetesClient client;
  private final ObjectFactory objects;

  Actions(KubernetesClient client, ObjectFactory objects) {
    this.client = client;
    this.objects = objects;
  }

  void perform(Scenario s) {
    switch (s.action) {
      case NONE -> { }
      case DELETE -> delete(s.root, DeletionPropagation.BACKGROUND);
      case FOREGROUND -> delete(s.root, DeletionPropagation.FOREGROUND);
      case ORPHAN_CASCADE -> delete(s.root, DeletionPropagation.ORPHAN);
      case NAMESPACE -> Retry.run("delete namespace " + s.namespace,
          () -> client.namespaces().withName(s.namespace).delete());
      case RACE -> {
        // the proposal's race: the new dependent's ADDED event may reach the operator after the
        // owner's DELETE; the freshness barrier must still find it
        Retry.run("create " + s.raced, () -> objects.create(s.raced));
        delete(s.root, DeletionPropagation.BACKGROUND);
      }
      case UNANNOTATE -> {
        Retry.run("remove the annotation of " + s.root, () -> objects.resource(s.root).patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"" + PROPAGATION + "\":null}}}"));
        awaitLetGo(s.root);
        delete(s.root, DeletionPropagation.BACKGROUND);
      }
      case REORPHAN -> {
        Retry.run("annotate " + s.root + " Orphan", () -> objects.resource(s.root).patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"annotations\":{\"" + PROPAGATION + "\":\"Orphan\"}}}"));
        delete(s.root, DeletionPropagation.BACKGROUND);
      }
      case UNORPHAN -> {
        delete(s.root, DeletionPropagation.BACKGROUND);
        whileThere(s.root, "annotate " + s.root + " Synchronous during its deletion", () -> objects.resource(s.root)
            .patch(PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"annotations\":{\"" + PROPAGATION + "\":\"Synchronous\"}}}"));
      }
      case POLICY_TO_SYNC -> {
        delete(s.root, DeletionPropagation.BACKGROUND);
        Retry.run("policy " + s.policy + " Synchronous during the deletion of " + s.root,
            () -> Policies.setPropagation(client, s.policy, Generator.SYNCHRONOUS));
      }
      case DROP_POLICY -> {
        Retry.run("delete policy " + s.policy, () -> Policies.delete(client, s.policy));
        awaitLetGo(s.root);
        delete(s.root, DeletionPropagation.BACKGROUND);
      }
    }
  }

  private void delete(SoakObject o, DeletionPropagation propagation) {
    Retry.run("delete " + o + " (" + propagation + ")",
        () -> objects.resource(o).withPropagationPolicy(propagation).delete());
  }

  /** A change to an object being deleted: done if it is still there (it may be gone already). */
  private static void whileThere(SoakObject o, String what, Runnable change) {
    try {
      Retry.run(what, change);
    } catch (IllegalStateException e) {
      if (!(e.getCause() instanceof KubernetesClientException k && k.getCode() == 404)) {
        throw e;
      }
    }
  }

  /** An owner no longer opted in loses syncgc's finalizer before it is deleted. */
  private void awaitLetGo(SoakObject o) {
    await(o + " without syncgc's finalizer").atMost(LET_GO).pollInterval(Duration.ofMillis(200))
        .ignoreExceptions().until(() -> {
          GenericKubernetesResource r = objects.current(o);
          return r != null && !r.getMetadata().getFinalizers().contains(FINALIZER);
        });
  }
}
