package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import dev.syncgc.engine.Engine;
import dev.syncgc.http.HealthServer;
import dev.syncgc.kube.CrdKinds;
import dev.syncgc.kube.Discovery;
import dev.syncgc.kube.EventRecorder;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.metrics.SyncgcMetrics;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Wires the operator together and runs it until the process is stopped. */
public final class Operator {
  private static final Logger log = LoggerFactory.getLogger(Operator.class);
  private final OperatorConfig config;

  public Operator(OperatorConfig config) {
    this.config = config;
  }

  public int run() throws Exception {
    log.info("starting config=\"{}\"", config);
    Clock clock = Clock.systemUTC();
    Config clientConfig = new ConfigBuilder(Config.autoConfigure(null))
        .withMaxConcurrentRequests(1024)
        .withMaxConcurrentRequestsPerHost(1024)
        .build();
    KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build();
    log.info("connected server={} version={}", client.getMasterUrl(), client.getKubernetesVersion().getGitVersion());

    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    SyncgcMetrics metrics = new SyncgcMetrics(registry);

    AtomicBoolean ready = new AtomicBoolean();
    HealthServer http = new HealthServer(config.httpAddress, config.httpPort, () -> true, ready::get,
        registry::scrape);
    http.start();
    log.info("serving health and metrics port={}", http.port());

    KubeApi api = new KubeApi(client, new RateLimiter(config.qps, config.burst), metrics);
    EventRecorder events = new EventRecorder(client, new RateLimiter(Math.max(5, config.qps / 4), 50),
        metrics, clock, Duration.ofMinutes(5), hostname());
    Discovery discovery = new Discovery(client, Duration.ofSeconds(10), clock);
    discovery.refresh();
    Engine engine = new Engine(client, discovery, config.engineSettings(), api, events, metrics, clock);

    List<CompletableFuture<Void>> initial = new ArrayList<>();
    for (String spec : config.builtinKinds()) {
      int slash = spec.lastIndexOf('/');
      String group = slash < 0 ? "" : spec.substring(0, slash);
      String kind = spec.substring(slash + 1);
      discovery.find(group, kind).ifPresentOrElse(k -> initial.add(engine.track(k)),
          () -> log.error("built-in kind {} is not served by the API server; not tracked", spec));
    }
    CrdKinds crds = new CrdKinds(client, engine::track, engine::untrack);
    crds.start().get(5, TimeUnit.MINUTES);
    for (var crd : client.apiextensions().v1().customResourceDefinitions().list().getItems()) {
      CrdKinds.kindOf(crd).ifPresent(k -> initial.add(engine.track(k)));
    }
    CompletableFuture.allOf(initial.toArray(CompletableFuture[]::new)).get(10, TimeUnit.MINUTES);
    engine.startWorkers();
    ready.set(true);
    log.info("ready objects={}", engine.graphSize());

    CountDownLatch stop = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log.info("stopping");
      ready.set(false);
      crds.close();
      engine.close();
      events.close();
      http.close();
      client.close();
      stop.countDown();
    }, "shutdown"));
    stop.await();
    return 0;
  }

  private static String hostname() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      return "syncgc";
    }
  }
}
