package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import dev.syncgc.engine.Engine;
import dev.syncgc.http.GraphDump;
import dev.syncgc.http.HealthServer;
import dev.syncgc.http.Liveness;
import dev.syncgc.kube.CrdKinds;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.NamespaceLabels;
import dev.syncgc.kube.ClientConfigs;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.kube.ServedKinds;
import dev.syncgc.metrics.ProcessCpuSeconds;
import dev.syncgc.metrics.SyncgcMetrics;
import dev.syncgc.policy.PolicyController;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the operator together and runs it until the process is stopped. */
public final class Operator {
  private static final Logger log = LoggerFactory.getLogger(Operator.class);
  /** Within a Pod's default termination grace period (30 s). */
  private static final Duration SHUTDOWN_BOUND = Duration.ofSeconds(20);
  /** SPEC: a kind that appears later is tracked within 10 s. */
  private static final Duration SERVED_KINDS_INTERVAL = Duration.ofSeconds(5);
  private final OperatorConfig config;
  private final Clock clock = Clock.systemUTC();
  private final AtomicBoolean ready = new AtomicBoolean();
  /** Set once the engine exists; until then (connecting, discovery) the process counts as alive. */
  private final java.util.concurrent.atomic.AtomicReference<Liveness> liveness =
      new java.util.concurrent.atomic.AtomicReference<>();
  /** What the shutdown closes, in this order: the workers first, the clients last. */
  private final List<AutoCloseable> closeInOrder = new ArrayList<>();
  /** The CRD kinds, once their watch runs (see {@link #buildGraph}). */
  private volatile CrdKinds crdKinds;

  public Operator(OperatorConfig config) {
    this.config = config;
  }

  /** Start-up, top to bottom; returns when the process is told to stop. */
  public int run() throws Exception {
    log.info("starting config=\"{}\"", config);
    Config clientConfig = clientConfig();
    KubernetesClient client = connect(clientConfig);
    PrometheusMeterRegistry registry = meterRegistry();
    SyncgcMetrics metrics = new SyncgcMetrics(registry);
    HealthServer http = serveHealthAndMetrics(registry);
    KubernetesClient apiClient = apiClient(clientConfig);
    RateLimiter limiter = new RateLimiter(config.qps, config.burst);
    KubeApi api = new KubeApi(apiClient, limiter, metrics);
    KubernetesClient readClient = readClient(clientConfig);
    KubeApi reads = new KubeApi(readClient, limiter, metrics);
    EventRecorder events = eventRecorder(client, metrics);
    Discovery discovery = new Discovery(client, Duration.ofSeconds(10), clock);
    discovery.refresh();
    NamespaceLabels namespaces = new NamespaceLabels(client);
    Engine engine = new Engine(discovery, config.engineSettings(), api, reads, events, metrics, clock,
        namespaces::of);
    engine.exitAfterAPause(() -> new Thread(() -> System.exit(1), "exit").start());
    if (config.debugGraph) {
      http.serve("/debug/graph", () -> GraphDump.lines(engine.graphSnapshot()));
    }
    liveness.set(new Liveness(config.livenessWatchTimeout, config.livenessStallTimeout, System::nanoTime,
        ready::get, engine::watches, engine::workProgress));
    List<AutoCloseable> kindWatches = buildGraph(client, discovery, namespaces, engine);
    ready.set(true);
    // objects carrying the finalizer that this configuration no longer watches: released once this
    // replica acts, beside the workers (never decided by them)
    OutOfScopeRelease outOfScope = new OutOfScopeRelease(client, api, events,
        new OutOfScopeRelease.Scope(groupKind -> coversKind(groupKind, engine, discovery),
            config.engineSettings().namespaces()));
    PolicyController policies = new PolicyController(client, engine.policies(), registry, metrics);
    Leadership leadership = new Leadership(config, hostname());
    leadership.start(client, policies, engine, outOfScope::start);

    closeInOrder.add(engine::stopWorkers); // first: nothing more is acted on, whatever the rest does
    closeInOrder.add(leadership);
    closeInOrder.add(policies);
    closeInOrder.addAll(kindWatches);
    closeInOrder.addAll(List.of(namespaces, engine, events, http, apiClient, readClient, client));
    awaitShutdown();
    return 0;
  }

  private static Config clientConfig() {
    return new ConfigBuilder(ClientConfigs.withoutTokenRefreshForCertificates(Config.autoConfigure(null)))
        .withMaxConcurrentRequests(1024)
        .withMaxConcurrentRequestsPerHost(1024)
        .build();
  }

  /** The client, once the API server has answered; else one line saying what was tried, and exit 1. */
  private static KubernetesClient connect(Config clientConfig) {
    KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build();
    try {
      log.info("connected server={} version={}", client.getMasterUrl(),
          client.getKubernetesVersion().getGitVersion());
      return client;
    } catch (RuntimeException e) {
      client.close();
      throw new StartupFailure(ClientConfigs.unreachable(clientConfig, e));
    }
  }

  private static PrometheusMeterRegistry meterRegistry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new ProcessCpuSeconds().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    SyncgcMetrics.buildInfo(registry.getPrometheusRegistry(), Operator.class.getPackage().getImplementationVersion(),
        System.getenv("SYNCGC_REVISION"));
    return registry;
  }

  private HealthServer serveHealthAndMetrics(PrometheusMeterRegistry registry) throws Exception {
    HealthServer http = new HealthServer(config.httpAddress, config.httpPort, () -> {
      Liveness l = liveness.get();
      return l == null ? new Liveness.Verdict(true, "ok") : l.check();
    }, ready::get, registry::scrape);
    http.start();
    log.info("serving health and metrics port={}", http.port());
    return http;
  }

  /**
   * syncgc's own calls are retried by the work queue, with backoff per object; an HTTP-level retry
   * inside a worker would only hold the worker (a LIST failing with 500 took ~20 s of retries).
   */
  private static KubernetesClient apiClient(Config clientConfig) {
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(clientConfig).withRequestRetryBackoffLimit(0).build()).build();
  }

  /**
   * The watches' and LISTs' client: HTTP/1.1, a connection per request. On HTTP/2 every watch holds a
   * stream of one connection for minutes, and the JDK's client fails a request once the server's
   * limit of concurrent streams (250) is reached instead of opening another connection: sharing the
   * writes' connection, one watch per kind left so few streams that a cascade without a client-side
   * limit had 41,784 of its DELETEs fail with "too many concurrent streams" (wide 10,000).
   */
  private static KubernetesClient readClient(Config clientConfig) {
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(clientConfig).withHttp2Disable(true).build()).build();
  }

  /** Events are a side channel: they get their own, smaller budget, also when the API limit is off. */
  private EventRecorder eventRecorder(KubernetesClient client, SyncgcMetrics metrics) {
    double eventQps = config.qps == 0 ? 50 : Math.max(5, config.qps / 4);
    return new EventRecorder(client, new RateLimiter(eventQps, 50), metrics, clock, Duration.ofMinutes(5),
        hostname());
  }

  /**
   * Whether this configuration covers a kind, whether or not it is tracked yet: a kind served later
   * (an aggregated API back up, a CRD just created) is not released from before its reflector starts.
   * With every served kind, every kind that could ever have carried the finalizer (list, watch and
   * delete) is covered; else every CRD kind, and the built-in kinds named.
   */
  private boolean coversKind(String groupKind, Engine engine, Discovery discovery) {
    if (config.tracksEveryServedKind() || engine.tracks(groupKind)
        || (crdKinds != null && crdKinds.defines(groupKind))) {
      return true;
    }
    return config.builtinKinds().stream()
        .anyMatch(spec -> discovery.find(spec).map(k -> k.groupKind().equals(groupKind)).orElse(false));
  }

  /**
   * Every tracked kind's initial list, and the namespaces' labels, in the graph before anything is
   * decided: every CRD kind (also those created later, through {@link CrdKinds}) and, by default,
   * every other kind served with list, watch and delete (also those served later, through
   * {@link dev.syncgc.kube.ServedKinds}), or the built-in kinds the flag names.
   */
  private List<AutoCloseable> buildGraph(KubernetesClient client, Discovery discovery, NamespaceLabels namespaces,
      Engine engine) throws Exception {
    List<CompletableFuture<Void>> initial = new ArrayList<>();
    initial.add(namespaces.start(engine::namespaceChanged));
    CrdKinds crds = new CrdKinds(client, engine::track, engine::untrack);
    crds.start().get(5, TimeUnit.MINUTES);
    crdKinds = crds;
    for (var crd : client.apiextensions().v1().customResourceDefinitions().list().getItems()) {
      CrdKinds.kindOf(crd).ifPresent(k -> initial.add(engine.track(k)));
    }
    List<AutoCloseable> watching = new ArrayList<>(List.of(crds));
    if (config.tracksEveryServedKind()) {
      ServedKinds served = new ServedKinds(discovery, crds::defines, engine::tracks, engine::track, engine::untrack);
      initial.addAll(served.trackNew());
      served.start(SERVED_KINDS_INTERVAL);
      watching.add(served);
    } else {
      for (String spec : config.builtinKinds()) {
        discovery.find(spec).ifPresentOrElse(k -> initial.add(engine.track(k)),
            () -> log.error("built-in kind {} is not served by the API server; not tracked", spec));
      }
    }
    CompletableFuture.allOf(initial.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
    log.info("graph built objects={}", engine.graphSnapshot().size());
    List<String> forbidden = engine.forbiddenKinds();
    if (!forbidden.isEmpty()) {
      log.warn("kinds not seen, list and watch forbidden: {}; their objects are not in the graph: an owner of"
          + " those kinds counts as keeping what it owns, a dependent of those kinds is neither deleted nor"
          + " waited for (grant get, list, watch, patch and delete on them to track them)",
          forbidden.stream().map(k -> k.startsWith("/") ? k.substring(1) : k).collect(Collectors.joining(", ")));
    }
    return watching;
  }

  /** Blocks until the process is told to stop; the shutdown closes everything, bounded in time. */
  private void awaitShutdown() throws InterruptedException {
    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(BoundedShutdown.of(() -> {
      log.info("stopping");
      ready.set(false);
      for (AutoCloseable c : closeInOrder) {
        try {
          c.close();
        } catch (Exception e) {
          log.warn("while stopping error={}", e.toString());
        }
      }
      log.info("stopped");
      stop.countDown();
      org.apache.logging.log4j.LogManager.shutdown();
    }, SHUTDOWN_BOUND, 1, code -> Runtime.getRuntime().halt(code)), "shutdown"));
    stop.await();
  }

  private static String hostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "syncgc";
    }
  }
}
