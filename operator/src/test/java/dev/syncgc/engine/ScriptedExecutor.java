package dev.syncgc.engine;

import dev.syncgc.core.deletion.SendCheck;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A {@link StepExecutor} over a graph, talking to a scripted API server that serves one tracked kind
 * (Widgets): the engine's calls against whatever answers a test scripts. Closes what it started.
 */
final class ScriptedExecutor implements AutoCloseable {
  static final TrackedKind WIDGETS = new TrackedKind("example.com", "v1", "Widget", "widgets", true);

  final StepExecutor executor;
  private final Reflectors reflectors;
  private final ParallelCalls calls;

  ScriptedExecutor(ScriptedApiServer server, DependencyGraph graph, Duration requestTimeout) throws Exception {
    SyncgcMetrics metrics = new SyncgcMetrics(new SimpleMeterRegistry());
    KubeApi api = new KubeApi(server.client, RateLimiter.unlimited(), metrics, requestTimeout);
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
    executor = new StepExecutor(graph, api, new DeletionReporter(new EventRecorder(server.client,
        RateLimiter.unlimited(), metrics, Clock.systemUTC(), Duration.ofMinutes(1), "scripted"), metrics,
        Clock.systemUTC(), Duration.ofMinutes(1), List::of, states), reflectors, new WorkQueue(Duration.ofMillis(100),
        Duration.ofSeconds(10)), Clock.systemUTC(), Duration.ofSeconds(30), calls, states,
        new SendCheck(graph, SettingsInForce.resolver(o -> DeletionSettings.fromAnnotations(o.annotations()),
            graph::get)), () -> null,
        new InUseHolds(System::nanoTime, Clock.systemUTC()));
  }

  @Override
  public void close() {
    reflectors.close();
    calls.close();
  }
}
