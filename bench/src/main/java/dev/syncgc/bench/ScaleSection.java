package dev.syncgc.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;

/** The report's section on many tracked objects: syncgc's heap, start-up and latency, beside kube-controller-manager. */
final class ScaleSection {
  private ScaleSection() {}

  /** The figures of the scale benchmark, by name. */
  record Result(Csv csv, Map<String, Stats> figures) {
    static Result of(Csv csv) {
      Map<String, List<Double>> values = new LinkedHashMap<>();
      for (Map<String, String> row : csv.rows) {
        values.computeIfAbsent(row.get("figure"), k -> new ArrayList<>()).add(Csv.number(row, "value"));
      }
      Map<String, Stats> figures = new LinkedHashMap<>();
      values.forEach((k, v) -> figures.put(k, Stats.of(v)));
      return new Result(csv, figures);
    }

    Stats get(String figure) {
      return figures.getOrDefault(figure, Stats.of(List.of()));
    }

    double median(String figure) {
      return get(figure).median();
    }
  }

  static void write(StringBuilder out, Result r) {
    Map<String, String> meta = r.csv().meta;
    out.append("## Scale: ").append(Fmt.count(r.median("objects"))).append(" tracked objects, beside "
        + "kube-controller-manager\n\n");
    Report.runLine(out, meta);
    out.append("**Method.** The tool creates ").append(Fmt.count(r.median("objects")))
        .append(" `BenchItem` objects with small bodies in ").append(meta.getOrDefault("namespaces", "?"))
        .append(" namespaces (one owner for every ").append(meta.getOrDefault("dependents", "?"))
        .append(" dependents, which name it in `ownerReferences`), in parallel, while the operator is stopped. "
        + "Heap: a fresh operator (-Xmx").append(meta.getOrDefault("operator_heap", "?"))
        .append(") on the cluster without them, after `jcmd GC.run`, is the baseline; with the "
        + "objects, the same after start-up; per object = (heap with − baseline) / objects. Start-up: from "
        + "starting the JVM until `/readyz` answers 200 (graph built from every kind's initial list); the log's "
        + "`starting` to `graph built objects=N` is the part after the JVM's own start. Latency: with the "
        + "objects tracked, an owner annotated `Synchronous` with ")
        .append(meta.getOrDefault("latency_dependents", "3"))
        .append(" dependents is deleted, and a watch on the dependents reports the first one marked for "
        + "deletion or gone. ").append(meta.getOrDefault("repetitions", "?"))
        .append(" start-ups; median, min–max.\n\n"
        + "**kube-controller-manager** (its garbage collector keeps a graph of every object of every deletable "
        + "kind, as syncgc does of the tracked kinds) is read from its own `/metrics` in the same run: "
        + "`go_memstats_heap_alloc_bytes` right after `/debug/pprof/heap?gc=1` (a forced collection, as "
        + "`jcmd GC.run` is for syncgc), once before the objects exist and once after its collector's graph "
        + "builder has taken them all in (`workqueue_adds_total` of `garbage_collector_graph_changes` grown by "
        + "at least the number of objects, nothing waiting). **Cascade CPU**: the owners of one namespace (")
        .append(Fmt.count(r.median("cascade_syncgc_objects")))
        .append(" objects) are annotated `Synchronous` and deleted by syncgc, and later those of a third namespace "
        + "again (the first cascade after the operator's start pays for the JIT compiling its code paths, the "
        + "second shows the steady state); those of another namespace (as many objects) are deleted with `propagationPolicy: Foreground` by kube-controller-manager at ")
        .append(meta.getOrDefault("kcm_qps", "?"))
        .append("; each one's `process_cpu_seconds_total` is read before the first DELETE and after the "
        + "namespace is empty. kube-controller-manager's figure is the whole process (its other controllers "
        + "have nothing to do with these objects, but their informers see the deletions).\n\n");
    out.append("| figure | median | min–max | n |\n|---|---:|---:|---:|\n");
    row(out, "objects created", r.get("objects"), Fmt::count);
    Stats create = r.get("create_seconds");
    out.append("| creating them | ").append(Fmt.seconds(create.median())).append(" (")
        .append(Fmt.count(r.median("objects") / create.median())).append(" objects/s) | | 1 |\n");
    row(out, "objects in syncgc's graph (`syncgc_graph_objects`)", r.get("graph_objects"), Fmt::count);
    row(out, "operator heap, without the objects, after full GC", r.get("baseline_heap_bytes"), Fmt::mib);
    row(out, "operator heap, with the objects, after full GC", r.get("heap_bytes"), Fmt::mib);
    row(out, "**syncgc: heap per tracked object**", r.get("heap_per_object_bytes"), ScaleSection::bytes);
    row(out, "kube-controller-manager heap, without the objects, after a forced GC", r.get("kcm_baseline_heap_bytes"),
        Fmt::mib);
    row(out, "kube-controller-manager heap, with the objects, after a forced GC", r.get("kcm_heap_bytes"), Fmt::mib);
    row(out, "**kube-controller-manager: heap per tracked object**", r.get("kcm_heap_per_object_bytes"),
        ScaleSection::bytes);
    row(out, "**start-up until /readyz 200**", r.get("ready_seconds"), Fmt::seconds);
    row(out, "**start-up until the graph holds every object** (`syncgc_graph_objects`)",
        r.get("graph_complete_seconds"), Fmt::seconds);
    row(out, "log: `starting` → `graph built` (a kind still listing after --initial-list-timeout is not waited for)",
        r.get("graph_build_seconds"), Fmt::seconds);
    row(out, "owner's DELETE → first dependent marked or gone", r.get("latency_seconds"),
        v -> Double.isFinite(v) ? String.format(Locale.ROOT, "%.0f ms", v * 1000) : "–");
    row(out, "cascade by syncgc: seconds", r.get("cascade_syncgc_seconds"), Fmt::seconds);
    row(out, "**cascade by syncgc: CPU seconds per 1,000 objects deleted**", r.get("cascade_syncgc_cpu_per_1000"),
        ScaleSection::cpu);
    row(out, "cascade by syncgc: API requests per object", r.get("cascade_syncgc_requests_per_object"),
        v -> Fmt.plain(v, 2));
    row(out, "second cascade by syncgc (same process, compiled code): seconds", r.get("cascade_syncgc_warm_seconds"),
        Fmt::seconds);
    row(out, "**second cascade by syncgc: CPU seconds per 1,000 objects deleted**",
        r.get("cascade_syncgc_warm_cpu_per_1000"), ScaleSection::cpu);
    row(out, "cascade by kube-controller-manager (foreground): seconds", r.get("cascade_kcm_seconds"), Fmt::seconds);
    row(out, "**cascade by kube-controller-manager: CPU seconds per 1,000 objects deleted**",
        r.get("cascade_kcm_cpu_per_1000"), ScaleSection::cpu);
    row(out, "cascade by kube-controller-manager: API requests per object (whole process)",
        r.get("cascade_kcm_requests_per_object"), v -> Fmt.plain(v, 2));
    out.append('\n');
  }

  static String bytes(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.0f B", v) : "–";
  }

  static String cpu(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2f s", v) : "–";
  }

  private static void row(StringBuilder out, String label, Stats s, DoubleFunction<String> f) {
    if (s.empty()) {
      return; // not measured by this run (older CSV)
    }
    out.append("| ").append(label).append(" | ").append(f.apply(s.median())).append(" | ")
        .append(s.count() > 1 ? f.apply(s.min()) + " – " + f.apply(s.max()) : "").append(" | ")
        .append(s.count()).append(" |\n");
  }
}
