package dev.syncgc.bench;

import dev.syncgc.core.deletion.DeletionPlanner;
import dev.syncgc.core.deletion.Step;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.usage.KindNames;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The planner's share of the in-use cascade, with no cluster: the objects of {@code in-use} ({@link SiblingUses})
 * in a graph, every owner deleted at once and planned again after each round of its steps, as the operator does
 * once something below it changed (a DELETE of a dependent with no finalizer removes it at once). Thread CPU time
 * of the planner's calls alone, so that other work on the machine moves it little; the variants (plain, the
 * uses' order by deletion waves, uses) interleaved.
 */
@Command(name = "planner", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Planner CPU of the in-use cascade without usage edges, with their order by deletion waves, and with"
        + " them, in this JVM (no cluster); prints per-variant medians and the ratios.")
final class PlannerCommand implements Callable<Integer> {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  private static final String NAMESPACE = "bench";

  @Option(names = "--owners", defaultValue = "1000", description = "Owners deleted at once (default: ${DEFAULT-VALUE}).")
  int owners;

  @Option(names = "--dependents", defaultValue = "10", description = "Dependents of each owner (default: ${DEFAULT-VALUE}).")
  int dependents;

  @Option(names = "--repetitions", defaultValue = "7",
      description = "Timed repetitions of each variant, after as many untimed (default: ${DEFAULT-VALUE}).")
  int repetitions;

  @Option(names = "--shape", defaultValue = "CHAIN", converter = InUseCommand.ShapeConverter.class,
      description = "chain or star, as for in-use (default: chain).")
  SiblingUses.Shape shape;

  private static final KindInfo KINDS = new KindInfo() {
    private final List<KindNames.NamedKind> named = List.of(new KindNames.NamedKind(BenchCrd.GROUP, BenchCrd.KIND,
        BenchCrd.PLURAL, List.of(), true));
    private final Map<String, KindNames.Resolution> answers = new ConcurrentHashMap<>(); // as the operator's

    @Override
    public Scope scope(OwnerLink link) {
      return Scope.NAMESPACED;
    }

    @Override
    public boolean tracked(OwnerLink link) {
      return true;
    }

    @Override
    public KindNames.Resolution resolve(String name) {
      return answers.computeIfAbsent(name, n -> KindNames.resolve(named, n));
    }
  };

  /** One played cascade: how many plans, and their CPU time. */
  record Run(long plans, long cpuNanos) {}

  @Override
  public Integer call() {
    List<String> variants = List.of(InUseCommand.PLAIN, InUseCommand.WAVES, InUseCommand.USES);
    Map<String, List<Run>> runs = new LinkedHashMap<>();
    variants.forEach(v -> runs.put(v, new ArrayList<>()));
    for (int r = 0; r < 2 * repetitions; r++) {
      for (String variant : r % 2 == 0 ? variants : List.of(variants.get(2), variants.get(1), variants.get(0))) {
        Run run = play(variant);
        if (r >= repetitions) {
          runs.get(variant).add(run);
        }
      }
    }
    System.out.printf(Locale.ROOT, "planner, %d owners x %d dependents, %s, %d repetitions after as many untimed%n",
        owners, dependents, shape.name().toLowerCase(Locale.ROOT), repetitions);
    Map<String, Double> medians = new LinkedHashMap<>();
    runs.forEach((variant, rs) -> {
      Stats cpu = Stats.of(rs.stream().map(r -> r.cpuNanos() / 1e6).toList());
      medians.put(variant, cpu.median());
      System.out.printf(Locale.ROOT, "  %-5s plans %,7d  planner CPU median %7.1f ms (%.1f-%.1f), %.1f us a plan%n",
          variant, rs.get(0).plans(), cpu.median(), cpu.min(), cpu.max(), cpu.median() * 1e3 / rs.get(0).plans());
    });
    System.out.printf(Locale.ROOT, "  uses/plain: %.1fx, uses/waves: %.2fx the planner's CPU for the cascade%n",
        medians.get(InUseCommand.USES) / medians.get(InUseCommand.PLAIN),
        medians.get(InUseCommand.USES) / medians.get(InUseCommand.WAVES));
    return 0;
  }

  private Run play(String variant) {
    Random random = new Random(42); // the same uids in every run
    DependencyGraph graph = new DependencyGraph(KINDS);
    Set<ObjectRef> left = new LinkedHashSet<>();
    for (int k = 0; k < owners; k++) {
      ObjectRef owner = new ObjectRef(BenchCrd.API_VERSION, BenchCrd.KIND, NAMESPACE, SiblingUses.owner(k),
          new UUID(random.nextLong(), random.nextLong()).toString());
      left.add(owner);
      graph.upsert(new ObjectMetadata(owner, 1, List.of(), List.of(Names.FINALIZER), NOW, null,
          Map.of(Names.PROPAGATION, "Synchronous"), Map.of()));
      OwnerLink link = new OwnerLink(owner.uid(), owner.apiVersion(), owner.kind(), owner.name());
      for (int i = 0; i < dependents; i++) {
        ObjectRef d = new ObjectRef(BenchCrd.API_VERSION, BenchCrd.KIND, NAMESPACE, SiblingUses.dependent(k, i),
            new UUID(random.nextLong(), random.nextLong()).toString());
        graph.upsert(new ObjectMetadata(d, 1, List.of(link), List.of(), null, null,
            variant.equals(InUseCommand.WAVES) ? SiblingUses.wave(shape, i, dependents)
                : SiblingUses.annotations(shape, variant.equals(InUseCommand.USES), k, i, dependents), Map.of()));
      }
    }
    DeletionPlanner planner = new DeletionPlanner(Duration.ofMinutes(1), Duration.ofSeconds(1));
    Function<ObjectMetadata, SettingsInForce> inForce = SettingsInForce::ofAnnotations;
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long plans = 0;
    long cpu = 0;
    for (int round = 0; !left.isEmpty(); round++) {
      if (round > 10 * (dependents + 2)) {
        throw new IllegalStateException(left.size() + " owners not released after " + round + " rounds");
      }
      for (ObjectRef ref : List.copyOf(left)) {
        ObjectMetadata owner = graph.get(ref.uid()); // by text: the same command runs against older planners
        long before = threads.getCurrentThreadCpuTime();
        List<Step> steps = planner.plan(graph, owner, inForce.apply(owner), NOW, uid -> null, List.of(), inForce);
        cpu += threads.getCurrentThreadCpuTime() - before;
        plans++;
        for (Step step : steps) {
          if (step instanceof Step.Start start) {
            Map<String, String> annotations = new HashMap<>(owner.annotations());
            annotations.put(Names.DEADLINE, start.deadline().toString());
            graph.upsert(new ObjectMetadata(ref, owner.resourceVersion() + 1, owner.owners(), owner.finalizers(),
                owner.deletionTimestamp(), null, annotations, owner.labels()));
          } else if (step instanceof Step.DeleteDependent delete) {
            graph.remove(delete.dependent().uid()); // no finalizer: gone at once
          } else if (step instanceof Step.Release) {
            graph.remove(ref.uid());
            left.remove(ref);
          }
        }
      }
    }
    return new Run(plans, cpu);
  }
}
