package dev.syncgc.e2e.soak;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;

import dev.syncgc.e2e.soak.Faults.Fault;
import dev.syncgc.e2e.soak.Generator.Round;
import dev.syncgc.e2e.soak.Oracle.Expectation;
import dev.syncgc.e2e.soak.Scenario.Mode;
import dev.syncgc.e2e.support.Namespaces;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One round: create the scenarios, act on them all at once, inject one fault at a random instant,
 * wait until reality matches the model (or the deadline passes), judge order and the audit log,
 * then remove everything the round made.
 */
final class SoakRound {
  /** Faults included (an API server restart takes ~20 s here), how long the round may take to settle. */
  static final Duration SETTLE = Duration.ofMinutes(4);
  private static final Duration SETUP = Duration.ofSeconds(90);

  /**
   * {@code inFlight}: scenarios whose owner was still there when the fault struck; {@code order}: the
   * order constraints judged (violations left out: they are in {@code violations}); {@code
   * invalidReferences}: objects carrying a reference Kubernetes considers invalid; {@code rejected429}:
   * requests of syncgc's identity the API server answered 429 while a throttle was in force (null:
   * the round had none; 0: a throttle that did not throttle, {@link #exercised()} false); {@code
   * usage}: its {@code syncgc.dev/uses} edges.
   */
  /** How many of syncgc's DELETEs and PATCHes a throttle round needs before a 429 is required of it. */
  static final int THROTTLE_NEEDS_REQUESTS = 30;

  record Result(int number, int objects, Fault fault, String faultLine, int inFlight, Map<Mode, Integer> modes,
      int deleted, int survived, long longestMillis, String longest, Deadlines deadlines, Long rejected429,
      AuditCheck.Counts audit, Checks.Judged order, int invalidReferences, Usage usage, List<String> violations) {
    /**
     * Whether the fault did what it is for: a throttle must have answered 429 at least once, unless
     * syncgc sent too few requests in the round for two to be in flight at once (a round of a few small
     * scenarios: CI's soak once drew one with 2 objects to delete; reported, see {@link #tooLightToThrottle}).
     */
    boolean exercised() {
      return fault != Fault.THROTTLE || (rejected429 != null && rejected429 > 0) || tooLightToThrottle();
    }

    /** A throttle round in which syncgc sent fewer than {@link #THROTTLE_NEEDS_REQUESTS} DELETEs and PATCHes. */
    boolean tooLightToThrottle() {
      return fault == Fault.THROTTLE && rejected429 != null && rejected429 == 0
          && audit.deletes() + audit.patches() < THROTTLE_NEEDS_REQUESTS;
    }

    /** A fault that strikes at an instant (not a throttle, which is in force from the start). */
    boolean struckAnInstant() {
      return fault != Fault.NONE && fault != Fault.THROTTLE;
    }
  }

  /**
   * The short deadlines judged ({@link Terminating}): owners with Release and with Keep, the Keep
   * owners really kept past their deadline, deadlines not found in the audit log (taken from the
   * action instead), and the largest lateness after a bound.
   */
  record Deadlines(int release, int keep, int keptPastDeadline, int fromAction, long latestMillis, String latest) {
    static final Deadlines NONE = new Deadlines(0, 0, 0, 0, Long.MIN_VALUE, "");

    Deadlines plus(Deadlines o) {
      boolean later = o.latestMillis > latestMillis;
      return new Deadlines(release + o.release, keep + o.keep, keptPastDeadline + o.keptPastDeadline,
          fromAction + o.fromAction, later ? o.latestMillis : latestMillis, later ? o.latest : latest);
    }
  }

  /**
   * The usage edges of a round ({@code syncgc.dev/uses}): how many, in how many scenarios, and of
   * them those the model promises no order for, by why: the user owns what it uses, a ring of use,
   * a mixed cycle of ownership and use; the user-before-used pairs in a cascade ({@link
   * Checks.Judged#uses()} says how many were judged), the pairs held in use beyond one ({@link
   * Oracle.InUse}, {@link Checks.Judged#inUse()}), and the users outside a cascade ({@link WideUses}).
   */
  record Usage(int edges, int scenarios, int ownsUsed, int ringOfUse, int mixedCycle, int promised, int inUse,
      int outsideUsers) {
    static final Usage NONE = new Usage(0, 0, 0, 0, 0, 0, 0, 0);

    Usage plus(Usage o) {
      return new Usage(edges + o.edges, scenarios + o.scenarios, ownsUsed + o.ownsUsed, ringOfUse + o.ringOfUse,
          mixedCycle + o.mixedCycle, promised + o.promised, inUse + o.inUse, outsideUsers + o.outsideUsers);
    }

    /**
     * The edges the model judges nothing of: inside a namespace deletion, what a user names but an
     * opted-in root (nothing else carries syncgc's finalizer for sure when the namespace controller
     * deletes it), or a user below what it uses.
     */
    int unjudged() {
      return edges - ownsUsed - ringOfUse - mixedCycle - promised - inUse;
    }

    static Usage of(Scenario s, Expectation e) {
      int edges = s.objects.stream().mapToInt(o -> o.uses.size()).sum();
      int owns = 0;
      int ring = 0;
      int mixed = 0;
      for (Oracle.Unjudged u : e.unjudgedUses()) {
        switch (u.why()) {
          case Oracle.OWNS_WHAT_IT_USES -> owns++;
          case Oracle.RING_OF_USE -> ring++;
          default -> mixed++;
        }
      }
      int promised = (int) e.order().stream().filter(b -> b.why().equals(Oracle.USERS_FIRST)).count();
      return new Usage(edges, edges > 0 ? 1 : 0, owns, ring, mixed, promised, e.inUse().size(), s.outsideUsers.size());
    }
  }

  private final SoakContext ctx;
  private final Round round;
  private final String tag;
  private final Fault fault;
  private final long faultDelayMillis;
  private final List<String> violations = new ArrayList<>();

  SoakRound(SoakContext ctx, Round round, String tag, Fault fault, long faultDelayMillis) {
    this.ctx = ctx;
    this.round = round;
    this.tag = tag;
    this.fault = fault;
    this.faultDelayMillis = faultDelayMillis;
  }

  Result run() throws Exception {
    List<SoakObject> all = round.all();
    create(all);
    Oracle oracle = new Oracle(all);
    Map<Scenario, Expectation> expected = new LinkedHashMap<>();
    round.scenarios().forEach(s -> expected.put(s, oracle.expect(s)));

    // a throttle is in force before the deletions begin (APF takes a moment to apply it); the
    // other faults strike at a random instant while the cascades run
    String throttled = fault == Fault.THROTTLE ? ctx.faults().inject(fault) : null;
    long start = System.nanoTime();
    List<Future<?>> acts = new ArrayList<>();
    Map<Scenario, Instant> actedAt = new ConcurrentHashMap<>();
    for (Scenario s : round.scenarios()) {
      acts.add(ctx.workers().submit(() -> {
        ctx.actions().perform(s);
        actedAt.put(s, Instant.now());
        deleteLateUsers(s);
        return null;
      }));
    }
    AtomicLong faultAt = new AtomicLong(start);
    Future<String> injected = throttled != null ? CompletableFuture.completedFuture(throttled)
        : ctx.timer().schedule(() -> {
          faultAt.set(System.nanoTime());
          return ctx.faults().inject(fault);
        }, faultDelayMillis, TimeUnit.MILLISECONDS);
    for (int i = 0; i < acts.size(); i++) {
      try {
        acts.get(i).get(SETTLE.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        violations.add(where(round.scenarios().get(i)) + "the action failed: " + e);
      }
    }
    String faultLine = injected.get(SETTLE.toMillis(), TimeUnit.MILLISECONDS);
    settle(expected);
    Long rejected429 = ctx.faults().endRound();
    if (rejected429 != null) {
      faultLine += "; " + rejected429 + " requests answered 429" + (rejected429 > 0 ? "" : ": NOT EXERCISED");
    }

    long longestMillis = 0;
    String longest = "";
    int deleted = 0;
    int survived = 0;
    int inFlight = 0;
    Checks.Judged order = Checks.Judged.NONE;
    Usage usage = Usage.NONE;
    int invalid = (int) round.misc().stream().filter(SoakObject::invalidReference).count();
    Map<String, String> cascade = new LinkedHashMap<>();
    Map<String, String> handOver = new LinkedHashMap<>();
    for (Map.Entry<Scenario, Expectation> e : expected.entrySet()) {
      Scenario s = e.getKey();
      Checks.Judged judged = ctx.checks().judge(e.getValue());
      judged.violations().forEach(v -> violations.add(where(s) + v));
      order = order.plus(judged.counts());
      usage = usage.plus(Usage.of(s, e.getValue()));
      invalid += (int) e.getKey().objects.stream().filter(SoakObject::invalidReference).count();
      deleted += e.getValue().deleted().size();
      survived += e.getValue().survivorOwners().size();
      e.getValue().deletes().cascade().forEach(o -> cascade.put(o.etcdKey(), o.uid));
      SoakObject orphan = e.getValue().deletes().handOver();
      if (orphan != null) {
        handOver.put(orphan.etcdKey(), orphan.uid);
      }
      Long gone = ctx.etcd().seenAt(s.root.etcdKey());
      if (s.mode() != Mode.NONE && (gone == null || gone > faultAt.get())) {
        inFlight++; // its owner was still there when the fault struck
      }
      if (s.mode() == Mode.SYNC && gone != null && (gone - start) / 1_000_000 > longestMillis) {
        longestMillis = (gone - start) / 1_000_000;
        longest = s.toString();
      }
    }
    Map<String, String> keys = new LinkedHashMap<>();
    all.stream().filter(o -> o.uid != null).forEach(o -> keys.put(o.etcdKey(), o.uid));
    List<AuditLog.Request> requests = ctx.audit().next();
    AuditCheck.Result audit = ctx.auditCheck().check(requests, new AuditCheck.Allowed(cascade, handOver), keys,
        ctx.etcd()::finalizersAt, Set.of(Fault.KILL_LEADER, Fault.KILL_ALL, Fault.PAUSE_LEADER).contains(fault));
    audit.violations().forEach(v -> violations.add(where(null) + v));
    Deadlines deadlines = deadlines(expected, requests, actedAt);
    cleanup(all);
    ctx.audit().next(); // the cleanup's requests are not judged
    ctx.holds().findings().forEach(v -> violations.add(where(null) + v)); // the cleanup's included
    Map<Mode, Integer> modes = new LinkedHashMap<>();
    round.scenarios().forEach(s -> modes.merge(s.mode(), 1, Integer::sum));
    return new Result(round.number(), all.size(), fault, faultLine, inFlight, modes, deleted, survived,
        longestMillis, longest, deadlines, rejected429, audit.counts(), order, invalid, usage, violations);
  }

  /** Deletes each user outside the scenario's cascade its delay after the action (a plain DELETE). */
  private void deleteLateUsers(Scenario s) throws InterruptedException {
    long acted = System.nanoTime();
    for (Map.Entry<SoakObject, Long> late : s.lateUsers().entrySet().stream()
        .sorted(Map.Entry.comparingByValue()).toList()) {
      long wait = late.getValue() - (System.nanoTime() - acted) / 1_000_000;
      if (wait > 0) {
        Thread.sleep(wait);
      }
      Retry.run("delete the user " + late.getKey(), () -> ctx.objects().resource(late.getKey()).delete());
    }
  }

  /**
   * Invariant 3 for the scenarios with a short deadline, judged once the round settled: each
   * owner's deletion against the deadline the operator recorded on it (its first successful PATCH
   * setting {@code syncgc.dev/deadline}, from the audit log; if the log lacks it, the moment the
   * action returned plus the timeout, which is earlier) and against its dependents' deletions.
   */
  private Deadlines deadlines(Map<Scenario, Expectation> expected, List<AuditLog.Request> requests,
      Map<Scenario, Instant> actedAt) {
    Map<String, Instant> recorded = new HashMap<>();
    for (AuditLog.Request r : requests) {
      if (r.succeeded() && r.verb().equals("patch") && r.deadline() != null) {
        try {
          recorded.putIfAbsent(r.key(), Instant.parse(r.deadline()));
        } catch (DateTimeParseException e) {
          violations.add(where(null) + "syncgc recorded a deadline that is no RFC 3339 time on " + r.key() + ": "
              + r.line());
        }
      }
    }
    Deadlines out = Deadlines.NONE;
    for (Map.Entry<Scenario, Expectation> e : expected.entrySet()) {
      Oracle.DeadlineRule rule = e.getValue().deadline();
      if (rule == null) {
        continue;
      }
      Scenario s = e.getKey();
      Instant deadline = recorded.get(rule.owner().etcdKey());
      boolean fromAction = deadline == null;
      if (fromAction) {
        deadline = actedAt.getOrDefault(s, Instant.now()).plusMillis(Oracle.TIMEOUT_MILLIS);
      }
      Map<SoakObject, Instant> gone = new HashMap<>();
      for (SoakObject d : rule.dependents()) {
        Instant at = ctx.etcd().goneAt(d.etcdKey());
        if (at != null) {
          gone.put(d, at);
        }
      }
      Terminating.Judgement j = Terminating.judge(rule, deadline, ctx.etcd().goneAt(rule.owner().etcdKey()), gone,
          Instant.now(), Terminating.SLACK);
      if (j.violation() != null) {
        violations.add(where(s) + j.violation() + (fromAction ? " (no deadline in the audit log: the action's"
            + " end plus " + Oracle.TIMEOUT_MILLIS + " ms)" : ""));
      }
      boolean keep = rule.onTimeout() == Scenario.Deadline.KEEP;
      long late = j.lateness() == null ? Long.MIN_VALUE : j.lateness().toMillis();
      out = out.plus(new Deadlines(keep ? 0 : 1, keep ? 1 : 0, keep && j.pastDeadline() ? 1 : 0, fromAction ? 1 : 0,
          late, "round " + round.number() + " (" + fault + "), " + s));
    }
    return out;
  }

  private void create(List<SoakObject> all) {
    Set<String> namespaces = namespaces();
    for (String ns : namespaces) {
      ctx.client().namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns)
          .addToLabels(Policies.ROUND_LABEL, tag).endMetadata().build()).create();
    }
    all.stream().filter(o -> o.kind == SoakObject.Kind.POD).map(o -> o.namespace).distinct()
        .forEach(ns -> Namespaces.awaitDefaultServiceAccount(ctx.client(), ns));
    for (Scenario s : round.scenarios()) {
      if (s.policy != null) {
        Policies.create(ctx.client(), s, tag, s.shape == Scenario.Shape.SYNC_POLICY || s.shape
            == Scenario.Shape.CLUSTER_SYNC ? Generator.SYNCHRONOUS : Generator.ORPHAN);
      }
    }
    Set<SoakObject> raced = new LinkedHashSet<>();
    round.scenarios().stream().filter(s -> s.raced != null).forEach(s -> raced.add(s.raced));
    List<SoakObject> now = all.stream().filter(o -> !raced.contains(o)).toList();
    ctx.objects().createAll(now);
    ctx.holds().watch(now);
    for (Scenario s : round.scenarios()) {
      if (s.optedIn()) {
        await(s.root + " opted in (syncgc's finalizer)").atMost(SETUP).pollInterval(Duration.ofMillis(200))
            .until(() -> {
              GenericKubernetesResource r = ctx.objects().current(s.root);
              return r != null && r.getMetadata().getFinalizers().contains(FINALIZER);
            });
      }
    }
  }

  /** Waits until every scenario is as the model says; what still differs at the deadline is a violation. */
  private void settle(Map<Scenario, Expectation> expected) {
    try {
      await("round " + round.number() + " as the model says").atMost(SETTLE).pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions().until(() -> expected.values().stream().allMatch(e -> ctx.checks().unmet(e).isEmpty()));
    } catch (ConditionTimeoutException timedOut) {
      for (Map.Entry<Scenario, Expectation> e : expected.entrySet()) {
        ctx.checks().unmet(e.getValue()).forEach(v -> violations.add(where(e.getKey()) + v + " after " + SETTLE));
      }
    }
  }

  private void cleanup(List<SoakObject> all) {
    ctx.holds().releaseImmediately(true);
    Policies.deleteRound(ctx.client(), tag);
    namespaces().forEach(ns -> Retry.run("delete namespace " + ns, () -> ctx.client().namespaces()
        .withName(ns).delete()));
    List<SoakObject> clusterScoped = all.stream().filter(o -> !o.kind.namespaced && o.uid != null).toList();
    clusterScoped.forEach(o -> Retry.run("delete " + o, () -> ctx.objects().resource(o).delete()));
    try {
      await("round " + round.number() + " cleaned up").atMost(SETTLE).pollInterval(Duration.ofSeconds(1))
          .ignoreExceptions().until(() -> namespaces().stream()
              .allMatch(ns -> ctx.client().namespaces().withName(ns).get() == null)
              && clusterScoped.stream().allMatch(o -> ctx.objects().current(o) == null));
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(where(null) + "the round's objects are not gone " + SETTLE + " after cleanup"
          + " began: " + all.stream().filter(o -> ctx.objects().current(o) != null).toList(), e);
    } finally {
      ctx.holds().releaseImmediately(false);
    }
  }

  private Set<String> namespaces() {
    Set<String> out = new LinkedHashSet<>();
    round.scenarios().stream().filter(s -> s.namespace != null).forEach(s -> out.add(s.namespace));
    out.add(round.miscNamespace());
    return out;
  }

  private String where(Scenario s) {
    return "seed " + ctx.seed() + ", round " + round.number() + " (" + fault + ")"
        + (s == null ? "" : ", " + s) + ": ";
  }
}
