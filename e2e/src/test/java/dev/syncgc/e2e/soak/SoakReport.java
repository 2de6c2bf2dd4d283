package dev.syncgc.e2e.soak;

import dev.syncgc.e2e.soak.Faults.Fault;
import dev.syncgc.e2e.soak.Scenario.Mode;
import dev.syncgc.e2e.support.LeaseReplicas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The soak's figures, as docs/soak.md shows them. */
final class SoakReport {
  final long seed;
  final List<SoakRound.Result> rounds = new ArrayList<>();
  final List<String> violations = new ArrayList<>();
  Duration took = Duration.ZERO;
  Map<String, Integer> audit = Map.of();
  double rejected429;
  /** Per round, each replica process's heap after a full GC before and after the round. */
  final List<String> heapByRound = new ArrayList<>();
  /** Every replica process sampled: its first and latest sample. */
  List<Heap.Life> heapLives = List.of();
  SoakRound.Deadlines deadlines = SoakRound.Deadlines.NONE;
  /** syncgc_deletions_finished_total by outcome, over every replica life that could be scraped. */
  final Map<String, Long> outcomes = new LinkedHashMap<>();
  int etcdReconnects;
  /** Versions of the soak's objects read from etcd's watch and decoded (owners, finalizers, deletion). */
  long etcdVersions;
  /** Replicas that exited on their own (lost Lease) and were started again. */
  int exits;
  String graph = "not checked";
  /** Who led when the graph was checked, and how long no replica held the Lease before. */
  String leaderAtEnd = "-";
  /** Each time without a leader after a SIGKILL of it, as the soak saw it (polled every second). */
  List<SoakOperators.Gap> leaderGaps = List.of();
  String command = "";
  /** The usage edges the soak drew. */
  Soak.Uses uses = Soak.Uses.NONE;

  SoakReport(long seed) {
    this.seed = seed;
  }

  void add(SoakRound.Result r, String heapLine) {
    rounds.add(r);
    heapByRound.add(heapLine);
    deadlines = deadlines.plus(r.deadlines());
    violations.addAll(r.violations());
  }

  String markdown() {
    Map<Fault, Integer> faults = new EnumMap<>(Fault.class);
    Map<Mode, Integer> modes = new EnumMap<>(Mode.class);
    int objects = 0;
    int deleted = 0;
    int survived = 0;
    int scenarios = 0;
    int invalid = 0;
    Checks.Judged order = Checks.Judged.NONE;
    SoakRound.Usage usage = SoakRound.Usage.NONE;
    SoakRound.Result longest = null;
    for (SoakRound.Result r : rounds) {
      faults.merge(r.fault(), 1, Integer::sum);
      r.modes().forEach((m, n) -> modes.merge(m, n, Integer::sum));
      scenarios += r.modes().values().stream().mapToInt(Integer::intValue).sum();
      objects += r.objects();
      invalid += r.invalidReferences();
      order = order.plus(r.order());
      usage = usage.plus(r.usage());
      deleted += r.deleted();
      survived += r.survived();
      if (longest == null || r.longestMillis() > longest.longestMillis()) {
        longest = r;
      }
    }
    StringBuilder md = new StringBuilder();
    md.append("# Reliability: the chaos soak\n\n")
        .append("Written by the soak (`make soak`, e2e/src/test/java/dev/syncgc/e2e/soak/) on ").append(Instant.now())
        .append(". Replay: `").append(command).append("`.\n\n")
        .append("| figure | value |\n|---|---|\n")
        .append(row("seed", Long.toString(seed)))
        .append(row("wall time", took.toSeconds() + " s"))
        .append(row("rounds", Integer.toString(rounds.size())))
        .append(row("scenarios (owners acted on)", Integer.toString(scenarios)))
        .append(row("objects created", Integer.toString(objects)))
        .append(row("objects the model says must be deleted", Integer.toString(deleted)))
        .append(row("objects the model says must survive (owners checked)", Integer.toString(survived)))
        .append(row("scenarios by deletion mode", modes.toString()))
        .append(row("objects carrying an owner reference Kubernetes considers invalid", Integer.toString(invalid)))
        .append(row("order constraints judged on etcd's record (both ends recorded)", order.before()
            + " gone-before-gone (owner last, sole owner, waves, users first), " + order.unreferenced() + " Orphan owners gone"
            + " after a dependent lost the reference, " + order.notWhileOwned() + " objects marked deleted after an"
            + " owner (no deletion under a live owner)"))
        .append(row("usage edges (syncgc.dev/uses, " + uses + ")", usage.edges() + " in " + usage.scenarios()
            + " scenarios, " + usage.outsideUsers() + " users outside a cascade; no order promised for "
            + usage.ownsUsed() + " (the user owns what it uses), " + usage.ringOfUse() + " (a ring of use), "
            + usage.mixedCycle() + " (a mixed cycle of ownership and use), " + usage.unjudged() + " (in a deleted"
            + " namespace, not naming the opted-in root; naming an object no deletion reaches)"))
        .append(row("user-before-used pairs in a cascade judged on etcd's record (both ends recorded; in the"
            + " gone-before-gone figure too)", order.uses() + " of " + usage.promised() + " promised, "
            + order.usesViolated() + " out of order"))
        .append(row("pairs held in use beyond one cascade judged (used gone after its user, or held while the user"
            + " existed)", order.inUse() + " of " + usage.inUse() + " promised, " + order.inUseViolated() + " violated"))
        .append(row("usage pairs judged (floor with usage WIDE: " + USAGE_FLOOR_PER_ROUND + " a round, over 3 rounds"
            + " or more)", usagePairsJudged() + (usageFloorMet() ? "" : ": BELOW THE FLOOR")))
        .append(row("faults injected", faults.toString()))
        .append(row("syncgc's DELETEs / PATCHes judged in the audit log",
            audit.getOrDefault("DELETE", 0) + " / " + audit.getOrDefault("PATCH/UPDATE", 0)
            + " (DELETEs refused: " + audit.getOrDefault("DELETE refused", 0) + ", of which refused before the"
            + " body was read: " + audit.getOrDefault("DELETE refused before its body was read", 0)
            + ", whose body never arrived (its sender killed between headers and body, not executed): "
            + audit.getOrDefault("DELETE whose body never arrived (not executed)", 0)
            + "; Orphan hand-overs: " + audit.getOrDefault("Orphan hand-overs", 0) + ")"))
        .append(row("requests answered 429 under the APF fault (kube-apiserver's"
            + " apiserver_flowcontrol_rejected_requests_total for syncgc's level), per throttled round",
            throttled()))
        .append(row("throttled rounds not exercised (0 requests answered 429)", notExercised().isEmpty() ? "none"
            : notExercised().size() + ": rounds " + notExercised()))
        .append(row("throttled rounds too light to throttle (fewer than " + SoakRound.THROTTLE_NEEDS_REQUESTS
            + " of syncgc's DELETEs and PATCHes, none answered 429; not counted as unexercised)",
            tooLight().isEmpty() ? "none" : tooLight().size() + ": rounds " + tooLight()))
        .append(row("faults that struck while deletions were in flight (floor: " + IN_FLIGHT_FLOOR_PERCENT
            + " % of them)", struckInFlight() + " of " + struck() + (inFlightFloorMet() ? "" : ": BELOW THE FLOOR")))
        .append(row("requests answered 429 (syncgc_api_requests_total, all replica lives that could be scraped)",
            Long.toString(Math.round(rejected429))))
        .append(row("longest synchronous deletion (action to owner gone)", longest == null ? "-"
            : longest.longestMillis() + " ms, round " + longest.number() + " (" + longest.fault() + "): "
                + longest.longest()))
        .append(row("deletions finished by outcome (syncgc_deletions_finished_total)", outcomes.toString()))
        .append(row("heap after a full GC (jcmd GC.run), the longest-lived replica process", longestLife()))
        .append(row("replica exits on a lost Lease, started again as the kubelet would", Integer.toString(exits)))
        .append(row("etcd watch reconnects", Integer.toString(etcdReconnects)))
        .append(row("versions of the soak's objects decoded from etcd's watch (for the order checks)",
            Long.toString(etcdVersions)))
        .append(row("times without a leader after a SIGKILL of it (seen within ~1 s)", leaderGaps.isEmpty() ? "-"
            : leaderGaps.size() + ", longest " + leaderGaps.stream().mapToLong(g -> g.length().toMillis()).max()
                .getAsLong() + " ms"))
        .append(row("leader at the end (awaited, at most " + Soak.LEADER_DEADLINE.toSeconds() + " s)", leaderAtEnd))
        .append(row("the leader's graph vs a fresh LIST at the end, by identity (every uid and the owner uids it"
            + " names; the graph read from the leader's /debug/graph)", graph == null ? "equal" : graph))
        .append(row("owners with a " + Oracle.TIMEOUT_MILLIS / 1000 + " s deadline judged (nothing Terminating"
            + " past its bound plus " + Terminating.SLACK.toSeconds() + " s)", deadlines.release() + " on-timeout Release"
            + " (bound: the deadline, or the last dependent gone if earlier), " + deadlines.keep() + " on-timeout Keep"
            + " (bound: the last dependent gone; never gone before it), of which " + deadlines.keptPastDeadline()
            + " were kept past their deadline; " + deadlines.fromAction() + " deadlines not in the audit log (taken"
            + " from the action)"))
        .append(row("largest lateness after a bound", deadlines.latestMillis() == Long.MIN_VALUE ? "-"
            : deadlines.latestMillis() + " ms, " + deadlines.latest()))
        .append(row("the slack (" + Terminating.SLACK.toSeconds() + " s) covers", "a SIGKILLed leader's " + LeaseReplicas.LEASE_DURATION + " Lease"
            + " running out, the other replica loading policies and rebuilding its graph from a LIST (a restarted"
            + " JVM here: ~10 s); a kube-apiserver restart (~20 s) that may cost a replica its Lease; 429s retried"
            + " with backoff under APF"))
        .append(row("bound on every other deletion", SoakRound.SETTLE.toMinutes()
            + " min from the action, faults included (the operators' default deadline is "
            + SoakOperators.DEFAULT_TIMEOUT + ", so that only the scenarios given a 3 s timeout time out)"))
        .append(row("survivors without syncgc's finalizer", "checked for every survivor once its owner's deletion"
            + " ended (the round settles only when none holds it; otherwise a violation after "
            + SoakRound.SETTLE.toMinutes() + " min)"))
        .append(row("violations", Integer.toString(violations.size())))
        .append("\n## Rounds\n\n| round | fault | deletions in flight at the fault | objects | must go | must stay | longest ms"
            + " | uses: edges (scenarios), user-before-used pairs judged / promised, out of order"
            + " | heap after a full GC, before → after the round (same process) |\n"
            + "|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < rounds.size(); i++) {
      SoakRound.Result r = rounds.get(i);
      md.append("| ").append(r.number()).append(" | ").append(r.faultLine()).append(" | ")
          .append(r.fault() == Fault.NONE ? "-" : r.inFlight() + " of " + r.modes().values().stream()
              .mapToInt(Integer::intValue).sum()).append(" | ").append(r.objects())
          .append(" | ").append(r.deleted()).append(" | ").append(r.survived()).append(" | ")
          .append(r.longestMillis()).append(" | ").append(r.usage().edges() == 0 ? "-" : r.usage().edges() + " ("
              + r.usage().scenarios() + "), " + r.order().uses() + " / " + r.usage().promised() + ", "
              + r.order().usesViolated()).append(" | ").append(heapByRound.get(i)).append(" |\n");
    }
    md.append("\n## Heap\n\nEach sample is taken right after a full collection that `jcmd <pid> GC.run` asks of"
        + " that process, before a round creates anything and after its cleanup; only samples of the same process"
        + " are compared (faults kill replicas, and a process started afresh says nothing about the one before)."
        + " The graph's objects/edges, the deletions in progress and JOSDK's reconciliation queues are sampled"
        + " with it; the operator exposes no tombstone count (its graph keeps at most 50 000).\n\n"
        + "| replica | pid | first sample | heap, graph, in progress, queued | latest sample | heap, graph, in progress,"
        + " queued |\n|---|---|---|---|---|---|\n");
    for (Heap.Life l : heapLives) {
      md.append("| ").append(l.first().replica()).append(" | ").append(l.first().pid()).append(" | ")
          .append(l.firstWhen()).append(" | ").append(l.first().brief()).append(" | ").append(l.lastWhen())
          .append(" | ").append(l.last().brief()).append(" |\n");
    }
    md.append("\n## Violations\n\n");
    if (violations.isEmpty()) {
      md.append("None.\n");
    }
    violations.forEach(v -> md.append("- ").append(v.replace("\n", " ")).append('\n'));
    return md.toString();
  }

  /** The rounds whose fault did not do what it is for (a throttle that answered no 429). */
  /**
   * The floor the soak fails under: a fault that strikes once every deletion of its round has ended
   * tests nothing, and one round in a few may by chance (a round of fast deletions); most must not.
   */
  static final int IN_FLIGHT_FLOOR_PERCENT = 60;

  /**
   * The floor under which the soak fails: usage pairs judged (a user gone before what it uses, or
   * what it uses held while it existed), per round drawn with usage edges. A generator that drew
   * none, or checks that found none of their ends in etcd's record, would pass by accident.
   */
  static final int USAGE_FLOOR_PER_ROUND = 1;

  int usagePairsJudged() {
    return rounds.stream().mapToInt(r -> r.order().usagePairs()).sum();
  }

  /**
   * Judged over 3 rounds or more with {@link Soak.Uses#WIDE} (a replayed round alone is judged by its
   * violations; edges inside one cascade only, ALL, are too few for a floor: a seed may draw none in 7 rounds).
   */
  boolean usageFloorMet() {
    return uses != Soak.Uses.WIDE || rounds.size() < 3 || usagePairsJudged() >= USAGE_FLOOR_PER_ROUND * rounds.size();
  }

  long struck() {
    return rounds.stream().filter(SoakRound.Result::struckAnInstant).count();
  }

  long struckInFlight() {
    return rounds.stream().filter(r -> r.struckAnInstant() && r.inFlight() > 0).count();
  }

  /** Judged over 3 faults or more (a replayed round alone is judged by its violations). */
  boolean inFlightFloorMet() {
    return struck() < 3 || struckInFlight() * 100 >= struck() * IN_FLIGHT_FLOOR_PERCENT;
  }

  List<Integer> tooLight() {
    return rounds.stream().filter(SoakRound.Result::tooLightToThrottle).map(SoakRound.Result::number).toList();
  }

  List<Integer> notExercised() {
    return rounds.stream().filter(r -> !r.exercised()).map(SoakRound.Result::number).toList();
  }

  private String throttled() {
    List<String> out = rounds.stream().filter(r -> r.rejected429() != null)
        .map(r -> r.rejected429() + " (round " + r.number() + ")").toList();
    return out.isEmpty() ? "-" : String.join(", ", out);
  }

  /** The line after which docs/soak.md is written by hand (the safety cases and their tests): kept. */
  static final String KEPT = "<!-- Written by hand below this line (safety cases, their tests and figures):"
      + " the soak keeps it. -->";

  void write(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    String kept = "";
    if (Files.exists(file)) {
      String old = Files.readString(file);
      int at = old.indexOf(KEPT);
      int lineEnd = at < 0 ? -1 : old.indexOf('\n', at);
      kept = lineEnd < 0 ? "" : old.substring(lineEnd + 1);
    }
    Files.writeString(file, markdown() + "\n" + KEPT + "\n" + kept);
  }

  /** The process sampled over the most rounds: its first and latest heap. */
  private String longestLife() {
    Heap.Life best = null;
    for (Heap.Life l : heapLives) {
      if (best == null || span(l) > span(best)) {
        best = l;
      }
    }
    return best == null ? "-" : String.format("%.1f MiB (%s) → %.1f MiB (%s), %s, pid %d; every process below",
        best.first().heapMiB(), best.firstWhen(), best.last().heapMiB(), best.lastWhen(), best.first().replica(),
        best.first().pid());
  }

  /** How many rounds apart a process's first and latest samples are ("before round 3" counts as 2.5). */
  private static double span(Heap.Life l) {
    return when(l.lastWhen()) - when(l.firstWhen());
  }

  private static double when(String label) {
    double n = Double.parseDouble(label.substring(label.lastIndexOf(' ') + 1));
    return label.startsWith("before") ? n - 0.5 : n;
  }

  private static String row(String figure, String value) {
    return "| " + figure + " | " + value.replace("|", "\\|") + " |\n";
  }
}
