package dev.syncgc.engine;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Synchronous deletion" 2: every DELETE rests on facts checked when it is sent. The race is made
 * to happen: the plan is made, the graph changes, then the executor sends the plan's calls.
 */
class SendTimeChecksTest {
  private static final String DELETE_D = "DELETE /apis/example.com/v1/namespaces/default/widgets/d";
  private static final ObjectMetadata OWNER = obj("x").deleting().syncFinalizer()
      .deadline(Instant.now().plusSeconds(3600)).annotate(Names.PROPAGATION, "Synchronous").build();

  private ScriptedApiServer server;
  private ScriptedExecutor scripted;
  private final DependencyGraph graph = TestObjects.graph();
  private final SettingsInForce settings = SettingsInForce.ofAnnotations(OWNER);

  @AfterEach
  void stop() {
    if (scripted != null) {
      scripted.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aUserThatAppearsBetweenPlanAndSendStopsTheDeleteOfWhatItUses() throws Exception {
    List<Step> steps = planDeletingD();
    Step.DeleteDependent delete = assertInstanceOf(Step.DeleteDependent.class, steps.get(0));
    assertEquals(Set.of(), delete.users(), "no user when planned");

    graph.upsert(obj("app").annotate(Names.USES, "widget/d").build()); // between the plan and the send

    Next next = scripted.executor.run(OWNER, settings, steps);

    assertTrue(next.retry(), "planned again on the fresh view: " + next);
    assertTrue(server.seen().stream().noneMatch(DELETE_D::equals), "no DELETE of what a user now uses: " + server.seen());
  }

  @Test
  void withoutANewUserTheDeleteGoes() throws Exception {
    List<Step> steps = planDeletingD();

    scripted.executor.run(OWNER, settings, steps);

    assertTrue(server.seen().stream().anyMatch(DELETE_D::equals), server.seen().toString());
  }

  /** x, being deleted, owns d: the plan deletes d. */
  private List<Step> planDeletingD() throws Exception {
    graph.upsert(OWNER);
    graph.upsert(obj("d").ownedBy("x").build());
    server = new ScriptedApiServer(x -> {
      String query = x.getRequestURI().getRawQuery() == null ? "" : x.getRequestURI().getRawQuery();
      if (query.contains("sendInitialEvents")) {
        return new Answer(400, null, "{\"kind\":\"Status\",\"code\":400}");
      }
      if (query.contains("watch=true")) {
        return new Answer(200, null, "", true);
      }
      if (x.getRequestMethod().equals("GET")) {
        return new Answer(200, null, "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":\"meta.k8s.io/v1\","
            + "\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[]}");
      }
      return new Answer(200, null, "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":\"meta.k8s.io/v1\","
          + "\"metadata\":{\"name\":\"d\",\"namespace\":\"default\",\"uid\":\"d\",\"resourceVersion\":\"7\"}}");
    });
    scripted = new ScriptedExecutor(server, graph, Duration.ofSeconds(2));
    return new DeletionPlanner(Duration.ofMinutes(1), Duration.ZERO).plan(graph, OWNER, settings, Instant.now(),
        scripted.executor.failures(), List.of(), o -> SettingsInForce.ofAnnotations(o));
  }
}
