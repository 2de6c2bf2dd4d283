package dev.syncgc.engine;

import dev.syncgc.core.deletion.SendCheck;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.Reflectors;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.settings.Setting;
import java.util.function.Function;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The engine's parts wired as the operator wires them, against the real API server, for tests of
 * one part at a time: metrics, an unlimited {@link KubeApi}, the work queue, parallel calls, Events
 * and (once {@link #executor} is asked for) reflectors of ConfigMaps in one namespace. Closed after
 * each test.
 */
final class EngineParts implements AutoCloseable {
  static final TrackedKind CONFIG_MAP = new TrackedKind("", "v1", "ConfigMap", "configmaps", true);

  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final SyncgcMetrics metrics = new SyncgcMetrics(registry);
  final KubeApi admin;
  final WorkQueue queue = new WorkQueue(Duration.ofMillis(100), Duration.ofSeconds(10));
  /** Threads of {@link #calls}: at most this many calls are in flight at once. */
  static final int CALL_THREADS = 4;
  final ParallelCalls calls = new ParallelCalls(CALL_THREADS);
  final EventRecorder events;
  final EdgeObjects objects;
  private final KubernetesClient client;
  private Reflectors reflectors;

  EngineParts(KubernetesClient client) {
    this.client = client;
    this.admin = new KubeApi(client, new RateLimiter(1000, 1000), metrics);
    this.events = new EventRecorder(client, new RateLimiter(1000, 1000), metrics, Clock.systemUTC(),
        Duration.ofMinutes(1), "edge-test");
    this.objects = new EdgeObjects(client);
  }

  /** Reflectors of ConfigMaps in {@code namespace} (their events unused), listed. */
  Reflectors reflectors(String namespace) throws Exception {
    reflectors = new Reflectors(admin, Set.of(namespace), Duration.ofSeconds(30), new Reflectors.ObjectEvents() {
      @Override
      public void upserted(TrackedKind kind, ObjectMetadata object) { }

      @Override
      public void deleted(TrackedKind kind, ObjectMetadata object) { }

      @Override
      public void listed(TrackedKind kind, String namespace, long at, Set<String> held) { }
    });
    reflectors.track(CONFIG_MAP).get(60, TimeUnit.SECONDS);
    return reflectors;
  }

  /** A StepExecutor on the graph of {@link #objects}, calling the API server through {@code api}. */
  StepExecutor executor(String namespace, KubeApi api) throws Exception {
    return executor(namespace, api, Clock.systemUTC());
  }

  /** As above, with the executor's clock given (how long a plan's calls go on being sent). */
  StepExecutor executor(String namespace, KubeApi api, Clock clock) throws Exception {
    Reflectors watched = reflectors(namespace);
    DeletionReporter reporter = new DeletionReporter(events, metrics, Clock.systemUTC(), Duration.ofMinutes(1), List::of,
        new ObjectStates());
    return new StepExecutor(objects.graph(), api, reporter, watched, queue, clock, Duration.ofSeconds(30),
        calls, new ObjectStates(), new SendCheck(objects.graph(), synchronousByPolicy()), () -> null,
        new InUseHolds(System::nanoTime, Clock.systemUTC()));
  }

  /** Settings in force as if a policy made every object Synchronous (its own annotations win). */
  Function<ObjectMetadata, SettingsInForce> synchronousByPolicy() {
    return SettingsInForce.resolver(o -> DeletionSettings.fromAnnotations(o.annotations()).orElse(
        DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS)),
        objects.graph()::get);
  }

  Reflectors reflectors() {
    return reflectors;
  }

  @Override
  public void close() {
    objects.releaseAll();
    if (reflectors != null) {
      reflectors.close();
    }
    events.close();
    calls.close();
    queue.shutdown();
  }
}
