package dev.syncgc.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Flags shared by the subcommands. */
final class Options {
  @Option(names = "--operator-jar", defaultValue = "operator/target/syncgc-operator.jar",
      description = "The operator jar, run with its default settings (default: ${DEFAULT-VALUE}).")
  Path operatorJar;

  @Option(names = "--cluster-script", defaultValue = "e2e/cluster.sh",
      description = "The local control plane's script; `restart-kcm` changes kube-controller-manager's QPS (default: ${DEFAULT-VALUE}).")
  Path clusterScript;

  @Option(names = "--widget-crd", defaultValue = "examples/widget-crd.yaml",
      description = "The Widget CRD whose schema the benchmark's kind BenchItem (bench.syncgc.dev) takes "
          + "(default: ${DEFAULT-VALUE}).")
  Path widgetCrd;

  @Option(names = "--docs", defaultValue = "docs/benchmarks.md",
      description = "Markdown report, rewritten from both CSV files (default: ${DEFAULT-VALUE}).")
  Path docs;

  @Option(names = "--csv", defaultValue = "docs/benchmarks.csv",
      description = "Every run of `compare`, one row each (default: ${DEFAULT-VALUE}).")
  Path csv;

  @Option(names = "--growth-csv", defaultValue = "docs/benchmarks-growth.csv",
      description = "The report's cost-as-work-grows section is read from here: `compare --csv` it to fill it "
          + "(default: ${DEFAULT-VALUE}).")
  Path growthCsv;

  @Option(names = "--scale-csv", defaultValue = "docs/benchmarks-scale.csv",
      description = "The figures of `scale` (default: ${DEFAULT-VALUE}).")
  Path scaleCsv;

  @Option(names = "--logs", defaultValue = "bench/target/logs",
      description = "Operator and kube-controller-manager restart logs (default: ${DEFAULT-VALUE}).")
  Path logs;

  @Option(names = "--operator-heap", defaultValue = "256m",
      description = "The operator JVM's -Xmx: the heap it must do its work in (default: ${DEFAULT-VALUE}, the growth "
          + "target's bound for a 100,000-object cascade; the chart's default 1Gi memory limit gives it 768m).")
  String operatorHeap;

  @Option(names = "--operator-jvm-option",
      description = "An extra JVM option for the operator, repeatable; e.g. to profile a run: "
          + "--operator-jvm-option=-XX:StartFlightRecording=filename=bench/target/operator.jfr,settings=profile")
  java.util.List<String> operatorJvmOptions = new java.util.ArrayList<>();

  @Option(names = "--kcm-url", defaultValue = "https://127.0.0.1:${env:SYNCGC_KCM_PORT:-16257}",
      description = "kube-controller-manager's secure port, for its /metrics and /debug/pprof/heap (default: "
          + "${DEFAULT-VALUE}).")
  String kcmUrl;

  @Option(names = "--qps", defaultValue = "200",
      description = "syncgc's default client QPS: the floor's and the raised kube-controller-manager's (default: ${DEFAULT-VALUE}).")
  double qps;

  @Option(names = "--burst", defaultValue = "400",
      description = "syncgc's default client burst: the floor's and the raised kube-controller-manager's (default: ${DEFAULT-VALUE}).")
  int burst;

  @Option(names = "--create-parallelism", defaultValue = "48",
      description = "Objects created in parallel (default: ${DEFAULT-VALUE}).")
  int createParallelism;

  @Option(names = "--note", defaultValue = "",
      description = "A sentence printed at the top of the report, e.g. that this was a small run on a busy machine.")
  String note;
}
