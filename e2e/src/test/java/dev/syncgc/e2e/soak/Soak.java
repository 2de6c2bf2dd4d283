package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Faults.Fault;
import dev.syncgc.e2e.support.Metrics;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.OperatorProcess;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The chaos soak: rounds of seeded random scenarios against two replicas of the operator, each
 * round with one fault, until the duration has passed and every fault has been injected at least
 * once; then the graph check. Everything it finds goes into the report; nothing stops it but a
 * round that cannot be cleaned up.
 */
final class Soak {
  /**
   * Settings: seed, how long, scenarios per round, the most objects of one scenario's tree, and the
   * one round to replay (0: every round). Replaying round N draws the rounds before it (their graphs,
   * faults and instants come from the seed in order) without running them, so it runs the same graph
   * under the same fault at the same instant after the actions as the soak that found it.
   */
  record Settings(long seed, Duration duration, int scenarios, int maxObjects, int round, Uses uses) {
    Settings(long seed, Duration duration, int scenarios, int maxObjects) {
      this(seed, duration, scenarios, maxObjects, 0);
    }

    Settings(long seed, Duration duration, int scenarios, int maxObjects, int round) {
      this(seed, duration, scenarios, maxObjects, round, Uses.NONE);
    }
  }

  /**
   * Usage edges ({@code syncgc.dev/uses}, {@link Generator}): NONE, ACYCLIC (those on a cycle of use
   * dropped), ALL (inside one synchronous cascade) or WIDE (ALL's, and those {@link WideUses} adds
   * beyond one cascade: across rings, Orphan owners, users outside, namespace deletions; {@link
   * SoakIT}'s default). A {@link SoakSeedsIT} seed keeps the setting it was found with: NONE before
   * usage edges existed, ALL before WIDE did.
   */
  enum Uses { NONE, ACYCLIC, ALL, WIDE }

  /**
   * How long the soak waits for a replica to hold the Lease: a SIGKILLed leader's Lease runs out
   * after 8 s (LeaseReplicas.LEASE_DURATION), the other replica takes it within its retry period, and a kube-apiserver
   * restart of the last round may delay that by its ~20 s.
   */
  static final Duration LEADER_DEADLINE = Duration.ofMinutes(2);

  private final Settings settings;
  private final KubernetesClient client;
  private final PrintStream log;

  Soak(Settings settings, KubernetesClient client, PrintStream log) {
    this.settings = settings;
    this.client = client;
    this.log = log;
  }

  SoakReport run() throws Exception {
    SoakReport report = new SoakReport(settings.seed());
    report.uses = settings.uses();
    long started = System.nanoTime();
    Random random = new Random(settings.seed());
    Generator generator = new Generator(random,
        settings.uses() == Uses.NONE ? null : Generator.usageRandom(settings.seed()), settings.maxObjects())
        .useCycles(settings.uses() != Uses.ACYCLIC)
        .wide(settings.uses() == Uses.WIDE ? Generator.wideRandom(settings.seed()) : null);
    TestCrds.install(client);
    ObjectFactory objects = new ObjectFactory(client);
    ExecutorService workers = Executors.newFixedThreadPool(8);
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (SoakOperators operators = new SoakOperators(client);
        EtcdDeletions etcd = new EtcdDeletions("http://127.0.0.1:" + env("SYNCGC_ETCD_PORT", "23790"));
        Holds holds = new Holds(objects);
        Faults faults = new Faults(client, operators)) {
      log.println("[soak] start: " + operators.awaitLeader(LEADER_DEADLINE).line());
      Heap heap = new Heap();
      AuditLog audit = new AuditLog(auditLogPath(), SoakOperators.USER);
      String prefix = "soak-" + Namespaces.randomSuffix(4);
      SoakContext ctx = new SoakContext(settings.seed(), client, objects, new Actions(client, objects), holds, etcd,
          audit, new AuditCheck(prefix), new Checks(objects, etcd), faults, workers, timer, log);
      List<Fault> cycle = new ArrayList<>();
      for (int number = 1; number <= Fault.values().length || number <= settings.round()
          || System.nanoTime() - started < settings.duration().toNanos(); number++) {
        if (cycle.isEmpty()) {
          cycle.addAll(List.of(Fault.values()));
          cycle.remove(Fault.PAUSE_LEADER);
          Collections.shuffle(cycle, random); // the draws of the faults there were before it
          cycle.add(Fault.PAUSE_LEADER);
        }
        Fault fault = cycle.remove(0);
        Generator.Round round = generator.round(prefix, number, settings.scenarios());
        long delay = random.nextInt(1500);
        if (number < settings.round()) {
          continue; // replaying one round: the rounds before it only draw what the seed gives them
        }
        log.printf("[soak] seed %d round %d: %d scenarios, fault %s at +%d ms%n", settings.seed(), number,
            round.scenarios().size(), fault, delay);
        round.scenarios().forEach(s -> log.println("[soak]   " + s));
        List<Heap.Sample> before = heap.sample(operators.replicas());
        SoakRound.Result result = new SoakRound(ctx, round, prefix + "-r" + number, fault, delay).run();
        String heapLine = heap.round(number, before, heap.sample(operators.replicas()));
        log.printf("[soak] round %d: %s (%d deletions in flight); %d must go, %d must stay, longest %d ms,"
            + " %d violations%n", number, result.faultLine(), result.inFlight(), result.deleted(), result.survived(),
            result.longestMillis(),
            result.violations().size());
        SoakRound.Usage u = result.usage();
        if (u.edges() > 0) {
          log.printf("[soak]   uses: %d edges in %d scenarios, %d users outside a cascade; %d user-before-used pairs"
              + " promised, %d judged on etcd's record, %d out of order; %d pairs held in use beyond a cascade, %d"
              + " judged, %d violated; not judged: %d user owns the used, %d in a ring of use, %d on a mixed cycle, %d"
              + " other%n", u.edges(), u.scenarios(), u.outsideUsers(), u.promised(), result.order().uses(),
              result.order().usesViolated(), u.inUse(), result.order().inUse(), result.order().inUseViolated(),
              u.ownsUsed(), u.ringOfUse(), u.mixedCycle(), u.unjudged());
        }
        SoakRound.Deadlines d = result.deadlines();
        if (d.release() + d.keep() > 0) {
          log.printf("[soak]   short deadlines: %d Release, %d Keep (%d kept past the deadline), largest lateness"
              + " after a bound %s ms (slack %d s)%n", d.release(), d.keep(), d.keptPastDeadline(),
              d.latestMillis() == Long.MIN_VALUE ? "-" : Long.toString(d.latestMillis()),
              Terminating.SLACK.toSeconds());
        }
        result.violations().forEach(v -> log.println("[soak]   VIOLATION " + v));
        log.println("[soak]   heap after a full GC, same process: " + heapLine);
        report.add(result, heapLine);
        if (number == settings.round()) {
          break;
        }
      }
      // The last round's fault may have SIGKILLed the leader: its Lease names a dead process until
      // it runs out, and only then does the other replica lead.
      SoakOperators.Leadership leadership = operators.awaitLeader(LEADER_DEADLINE);
      log.println("[soak] end: " + leadership.line());
      report.leaderAtEnd = leadership.line();
      report.leaderGaps = operators.gaps();
      OperatorProcess leader = leadership.leader();
      report.graph = GraphCheck.check(client, leader);
      if (report.graph != null) {
        report.violations.add("seed " + settings.seed() + ", end: the graph differs from a LIST: " + report.graph);
      }
      List<String> lives = new ArrayList<>(operators.earlierLives());
      operators.replicas().forEach(r -> lives.add(r.metrics()));
      report.rejected429 = sum(lives, "syncgc_api_requests_total", Map.of("code", "429"));
      for (String outcome : List.of("completed", "timed_out", "orphaned", "handed_over")) {
        report.outcomes.put(outcome, (long) sum(lives, "syncgc_deletions_finished_total", Map.of("outcome", outcome)));
      }
      report.heapLives = heap.lives();
      report.audit = ctx.auditCheck().counts();
      report.etcdReconnects = etcd.reconnects();
      report.etcdVersions = etcd.decoded();
      report.exits = operators.exits().size();
      etcd.problems().forEach(p -> report.violations.add("seed " + settings.seed() + ": " + p));
    } finally {
      workers.shutdownNow();
      timer.shutdownNow();
    }
    report.took = Duration.ofNanos(System.nanoTime() - started);
    return report;
  }

  private static double sum(List<String> lives, String name, Map<String, String> labels) {
    return lives.stream().mapToDouble(text -> Metrics.parse(text).sum(name, labels).orElse(0)).sum();
  }

  private static Path auditLogPath() {
    ProcessRunner.Result r = ProcessRunner.run(List.of("bash",
        TestCluster.repoRoot().resolve("e2e/cluster.sh").toString(), "audit-log"), Map.of(), Duration.ofSeconds(30));
    return Path.of(r.assertOk().stdout().trim());
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isBlank() ? fallback : value;
  }
}
