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
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SPEC "Synchronous deletion" 2: every DELETE rests on facts checked when it is sent. The race is made
 * to happen: the plan is made, the graph changes, then the executor sends the plan's calls.
 */
class SendTimeChecksTest {
  private static final TrackedKind WIDGETS = new TrackedKind("example.com", "v1", "Widget", "widgets", true);
  private static final String DELETE_D = "DELETE /apis/example.com/v1/namespaces/default/widgets/d";

  private ScriptedApiServer server;
  private Reflectors reflectors;
  private ParallelCalls calls;

  @AfterEach
  void stop() {
    if (reflectors != null) {
      reflectors.close();
    }
    if (calls != null) {
      calls.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aUserThatAppearsBetweenPlanAndSendStopsTheDeleteOfWhatItUses() throws Exception {
    DependencyGraph graph = TestObjects.graph();
    ObjectMetadata owner = obj("x").deleting().syncFinalizer().deadline(Instant.now().plusSeconds(3600))
        .annotate(Names.PROPAGATION, "Synchronous").build();
    graph.upsert(owner);
    graph.upsert(obj("d").ownedBy("x").build());
    StepExecutor executor = executor(graph);
    SettingsInForce settings = SettingsInForce.ofAnnotations(owner);
    List<Step> steps = new DeletionPlanner(Duration.ofMinutes(1), Duration.ZERO).plan(graph, owner, settings,
        Instant.now(), executor.failures(), List.of(), o -> SettingsInForce.ofAnnotations(o));
    Step.DeleteDependent delete = assertInstanceOf(Step.DeleteDependent.class, steps.get(0));
    assertEquals(Set.of(), delete.users(), "no user when planned");

    graph.upsert(obj("app").annotate(Names.USES, "widget/d").build()); // between the plan and the send

    Next next = executor.run(owner, settings, steps);

    assertEquals(Next.RETRY, next, "planned again on the fresh view");
    assertTrue(server.seen().stream().noneMatch(DELETE_D::equals), "no DELETE of what a user now uses: " + server.seen());
  }

  @Test
  void withoutANewUserTheDeleteGoes() throws Exception {
    DependencyGraph graph = TestObjects.graph();
    ObjectMetadata owner = obj("x").deleting().syncFinalizer().deadline(Instant.now().plusSeconds(3600))
        .annotate(Names.PROPAGATION, "Synchronous").build();
    graph.upsert(owner);
    graph.upsert(obj("d").ownedBy("x").build());
    StepExecutor executor = executor(graph);
    SettingsInForce settings = SettingsInForce.ofAnnotations(owner);
    List<Step> steps = new DeletionPlanner(Duration.ofMinutes(1), Duration.ZERO).plan(graph, owner, settings,
        Instant.now(), executor.failures(), List.of(), o -> SettingsInForce.ofAnnotations(o));

    executor.run(owner, settings, steps);

    assertTrue(server.seen().stream().anyMatch(DELETE_D::equals), server.seen().toString());
  }

  private StepExecutor executor(DependencyGraph graph) throws Exception {
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
    SyncgcMetrics metrics = new SyncgcMetrics(new SimpleMeterRegistry());
    KubeApi api = new KubeApi(server.client, RateLimiter.unlimited(), metrics, Duration.ofSeconds(2));
    reflectors = new Reflectors(api, Set.of(), Duration.ofSeconds(10), new Reflectors.ObjectEvents() {
      @Override
      public void upserted(TrackedKind kind, ObjectMetadata object) { }

      @Override
      public void deleted(TrackedKind kind, ObjectMetadata object) { }

      @Override
      public void listed(TrackedKind kind, String namespace, long at, Set<String> held) { }
    });
    reflectors.track(WIDGETS).get(10, TimeUnit.SECONDS);
    calls = new ParallelCalls(2);
    ObjectStates states = new ObjectStates();
    return new StepExecutor(graph, api, new DeletionReporter(new EventRecorder(server.client, RateLimiter.unlimited(),
        metrics, Clock.systemUTC(), Duration.ofMinutes(1), "send-time"), metrics, Clock.systemUTC(),
        Duration.ofMinutes(1), List::of, states), reflectors, new WorkQueue(Duration.ofMillis(100),
        Duration.ofSeconds(10)), Clock.systemUTC(), Duration.ofSeconds(30), calls, states,
        SettingsInForce.resolver(o -> DeletionSettings.fromAnnotations(o.annotations()), graph::get), () -> null,
        new InUseHolds(System::nanoTime, Clock.systemUTC()));
  }
}
