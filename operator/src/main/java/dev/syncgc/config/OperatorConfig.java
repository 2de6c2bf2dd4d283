package dev.syncgc.config;

import dev.syncgc.core.settings.GoDuration;
import dev.syncgc.engine.EngineSettings;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Command-line flags; each can also be set by the environment variable named in its default. */
@Command(
    name = "syncgc-operator",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    subcommands = ReleaseCommand.class,
    description = "Synchronous garbage collection for Kubernetes custom resources.")
public class OperatorConfig {
  /** Every kind the API server serves with list, watch and delete, as the built-in collector. */
  public static final String EVERY_SERVED_KIND = "*";

  @Spec CommandSpec spec;

  @Option(names = "--http-address", defaultValue = "${env:SYNCGC_HTTP_ADDRESS:-0.0.0.0}",
      description = "Address for /healthz, /readyz and /metrics (default: ${DEFAULT-VALUE}, env SYNCGC_HTTP_ADDRESS).")
  public String httpAddress;

  @Option(names = "--debug-graph", defaultValue = "${env:SYNCGC_DEBUG_GRAPH:-false}",
      description = "Serve /debug/graph on the HTTP port: every object in the graph as 'uid owner-uid,...' lines,"
          + " for tests that compare it with a LIST. Off by default: it names every tracked object's uid"
          + " (env SYNCGC_DEBUG_GRAPH).")
  public boolean debugGraph;

  @Option(names = "--http-port", defaultValue = "${env:SYNCGC_HTTP_PORT:-8080}",
      description = "Port for /healthz, /readyz and /metrics; 0 picks a free one (default: ${DEFAULT-VALUE}, env SYNCGC_HTTP_PORT).")
  public int httpPort;

  @Option(names = "--workers", defaultValue = "${env:SYNCGC_WORKERS:-32}",
      description = "Objects synced in parallel (default: ${DEFAULT-VALUE}, env SYNCGC_WORKERS).")
  public int workers;

  @Option(names = "--kube-api-qps", defaultValue = "${env:SYNCGC_KUBE_API_QPS:-200}",
      description = "Sustained API requests per second; 0 turns the client-side limit off and leaves throttling"
          + " to the API server (429 and Retry-After are honoured) (default: ${DEFAULT-VALUE}, env SYNCGC_KUBE_API_QPS).")
  public double qps;

  @Option(names = "--kube-api-burst", defaultValue = "${env:SYNCGC_KUBE_API_BURST:-400}",
      description = "API request burst; ignored when --kube-api-qps is 0 (default: ${DEFAULT-VALUE}, env SYNCGC_KUBE_API_BURST).")
  public int burst;

  @Option(names = "--namespaces", split = ",", defaultValue = "${env:SYNCGC_NAMESPACES:-}",
      description = "Namespaces whose objects are tracked, comma-separated; empty for all (env SYNCGC_NAMESPACES).")
  public List<String> namespaces;

  @Option(names = "--builtin-kinds", split = ",", defaultValue = "${env:SYNCGC_BUILTIN_KINDS:-" + EVERY_SERVED_KIND + "}",
      description = "Kinds to track besides every CRD kind, as Kind or group/Kind; '*' (the default) tracks every"
          + " kind the API server serves with list, watch and delete, also those served later, as the built-in"
          + " garbage collector (env SYNCGC_BUILTIN_KINDS). A restricted list leaves the other kinds unseen:"
          + " syncgc then names them instead of waiting for them.")
  public List<String> builtinKinds;

  @Option(names = "--default-timeout", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_DEFAULT_TIMEOUT:-2m}",
      description = "Base deadline of a synchronous deletion without syncgc.dev/timeout (default: ${DEFAULT-VALUE}, env SYNCGC_DEFAULT_TIMEOUT).")
  public Duration defaultTimeout;

  @Option(names = "--timeout-per-dependent", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_TIMEOUT_PER_DEPENDENT:-100ms}",
      description = "Added to the base deadline for each dependent, direct or indirect (default: ${DEFAULT-VALUE}, env SYNCGC_TIMEOUT_PER_DEPENDENT).")
  public Duration timeoutPerDependent;

  @Option(names = "--in-use", negatable = true, defaultValue = "${env:SYNCGC_IN_USE:-true}", fallbackValue = "true",
      description = "A used object under deletion waits for the objects that name it in syncgc.dev/uses, and"
          + " users go first in a cascade (SPEC \"In use\"); --no-in-use turns it off (default: ${DEFAULT-VALUE}).")
  public boolean inUse;

  @Option(names = "--waiting-event-interval", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_WAITING_EVENT_INTERVAL:-30s}",
      description = "At most one WaitingForDependents Event per owner in this time (default: ${DEFAULT-VALUE}).")
  public Duration waitingEventInterval;

  @Option(names = "--recheck-interval", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_RECHECK_INTERVAL:-30s}",
      description = "A waiting owner is looked at again at least this often (default: ${DEFAULT-VALUE}).")
  public Duration recheckInterval;

  @Option(names = "--initial-list-timeout", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_INITIAL_LIST_TIMEOUT:-60s}",
      description = "Start-up waits at most this long for a kind whose list keeps failing (a conversion webhook"
          + " down), then starts without it and keeps retrying (default: ${DEFAULT-VALUE}).")
  public Duration initialListTimeout;

  @Option(names = "--leader-election", defaultValue = "${env:SYNCGC_LEADER_ELECTION:-false}",
      description = "Elect one active replica through a Lease; the others stand by with a warm graph (env SYNCGC_LEADER_ELECTION).")
  public boolean leaderElection;

  @Option(names = "--leader-election-namespace", defaultValue = "${env:SYNCGC_LEADER_ELECTION_NAMESPACE:-}",
      description = "Namespace of the Lease; default: the pod's own namespace (env SYNCGC_LEADER_ELECTION_NAMESPACE).")
  public String leaderElectionNamespace;

  @Option(names = "--leader-election-lease-name", defaultValue = "${env:SYNCGC_LEADER_ELECTION_LEASE_NAME:-syncgc}",
      description = "Name of the Lease (default: ${DEFAULT-VALUE}).")
  public String leaseName;

  @Option(names = "--leader-election-lease-duration", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_LEADER_ELECTION_LEASE_DURATION:-15s}",
      description = "How long the Lease holds without renewal: a standby takes over that long after the leader"
          + " stopped (renew deadline 2/3 of it, retry period 2/15; at least 6s; default: ${DEFAULT-VALUE},"
          + " env SYNCGC_LEADER_ELECTION_LEASE_DURATION).")
  public Duration leaseDuration;

  @Option(names = "--liveness-watch-timeout", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_LIVENESS_WATCH_TIMEOUT:-5m}",
      description = "/healthz fails once not one tracked kind's watch has run for this long, after start-up"
          + " (default: ${DEFAULT-VALUE}, env SYNCGC_LIVENESS_WATCH_TIMEOUT).")
  public Duration livenessWatchTimeout;

  @Option(names = "--liveness-stall-timeout", converter = DurationConverter.class,
      defaultValue = "${env:SYNCGC_LIVENESS_STALL_TIMEOUT:-5m}",
      description = "/healthz fails once objects have waited in the queue this long with no worker finishing a"
          + " sync (default: ${DEFAULT-VALUE}, env SYNCGC_LIVENESS_STALL_TIMEOUT).")
  public Duration livenessStallTimeout;

  /** Parses Go-style durations (90s, 5m, 1h30m) with a message that names the value. */
  public static final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      return GoDuration.parse(value);
    }
  }

  /** Checks what picocli's types cannot; a {@link ParameterException} names the flag. */
  public void validate() {
    if (workers < 1) {
      throw new ParameterException(spec.commandLine(), "--workers must be at least 1, got " + workers);
    }
    if (!(qps >= 0) || Double.isInfinite(qps)) {
      throw new ParameterException(spec.commandLine(),
          "--kube-api-qps must be a positive number, or 0 for no client-side limit, got " + qps);
    }
    if (qps > 0 && burst < 1) {
      throw new ParameterException(spec.commandLine(), "--kube-api-burst must be at least 1, got " + burst);
    }
    for (var t : java.util.Map.of("--liveness-watch-timeout", livenessWatchTimeout,
        "--liveness-stall-timeout", livenessStallTimeout).entrySet()) {
      if (t.getValue() == null || t.getValue().isZero() || t.getValue().isNegative()) {
        throw new ParameterException(spec.commandLine(), t.getKey() + " must be greater than zero, got " + t.getValue());
      }
    }
    if (httpPort < 0 || httpPort > 65535) {
      throw new ParameterException(spec.commandLine(), "--http-port must be 0..65535, got " + httpPort);
    }
    try {
      LeaseTimings.of(leaseDuration);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--leader-election-lease-duration: " + e.getMessage());
    }
    for (String kind : builtinKinds()) {
      if (kind.equals(EVERY_SERVED_KIND) && builtinKinds().size() > 1) {
        throw new ParameterException(spec.commandLine(), "--builtin-kinds: '*' (every served kind) stands alone");
      }
      if (!kind.equals(EVERY_SERVED_KIND) && !kind.matches("([a-z0-9.-]+/)?[A-Z][A-Za-z0-9]*")) {
        throw new ParameterException(spec.commandLine(),
            "--builtin-kinds: '" + kind + "' is not Kind or group/Kind, e.g. ConfigMap or apps/Deployment");
      }
    }
  }

  public List<String> builtinKinds() {
    return clean(builtinKinds);
  }

  /** {@code --builtin-kinds=*}: every kind served with list, watch and delete is tracked. */
  public boolean tracksEveryServedKind() {
    return builtinKinds().equals(List.of(EVERY_SERVED_KIND));
  }

  public EngineSettings engineSettings() {
    Set<String> ns = new LinkedHashSet<>(clean(namespaces));
    return new EngineSettings(workers, ns, defaultTimeout, timeoutPerDependent, waitingEventInterval,
        recheckInterval, initialListTimeout, inUse, leaseTimings().pauseLimit());
  }

  public LeaseTimings leaseTimings() {
    return LeaseTimings.of(leaseDuration);
  }

  private static List<String> clean(List<String> values) {
    return values == null ? List.of()
        : values.stream().map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  @Override
  public String toString() {
    return "workers=" + workers + " qps=" + qps + " burst=" + burst + " namespaces=" + clean(namespaces)
        + " builtinKinds=" + builtinKinds() + " defaultTimeout=" + defaultTimeout
        + " timeoutPerDependent=" + timeoutPerDependent + " " + Arrays.asList(httpAddress, httpPort);
  }
}
