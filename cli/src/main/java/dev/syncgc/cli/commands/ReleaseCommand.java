package dev.syncgc.cli.commands;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.cli.cluster.Cluster;
import dev.syncgc.cli.cluster.OperatorInfo;
import dev.syncgc.core.model.Names;
import dev.syncgc.kube.CallCounts;
import dev.syncgc.kube.KubeApi;
import dev.syncgc.kube.RateLimiter;
import dev.syncgc.uninstall.Uninstall;
import dev.syncgc.uninstall.OperatorStop;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "release", mixinStandardHelpOptions = true,
    description = {"The release the chart's pre-delete hook runs, from here: scale the operator to zero, then remove"
        + " syncgc's finalizer from every object of every kind the server lets be listed (an object being deleted"
        + " is handed to the built-in collector by its propagation in force). For uninstalls that run no Helm"
        + " hooks: Argo CD, kubectl delete namespace, helm uninstall --no-hooks.",
        "Exits 0 when every object was released; 5 naming the kinds it could not list, or when an object could"
            + " not be released."})
public final class ReleaseCommand implements Callable<Integer> {
  @Mixin ClusterOptions options;

  @Option(names = "--operator-namespace", description = "The operator's namespace (default: found by the label "
      + OperatorInfo.POD_SELECTOR + ").")
  String operatorNamespace;

  @Option(names = "--operator-deployment", description = "The operator's Deployment, scaled to zero first (default:"
      + " the one labelled " + OperatorInfo.POD_SELECTOR + ").")
  String operatorDeployment;

  @Option(names = {"-y", "--yes"}, description = "Do not ask for confirmation.")
  boolean yes;

  @Option(names = "--qps", defaultValue = "50", description = "Requests per second at most (default: ${DEFAULT-VALUE}).")
  double qps;

  @Override
  public Integer call() throws InterruptedException {
    try (Cluster cluster = Cluster.connect(options)) {
      Deployment operator = operator(cluster);
      String stop = operator == null
          ? "No operator Deployment labelled " + OperatorInfo.POD_SELECTOR + " found" + (operatorNamespace == null ? ""
              : " in " + operatorNamespace) + ": stop syncgc yourself first, if it runs, or it puts its finalizer back."
          : "This scales the operator's Deployment " + operator.getMetadata().getNamespace() + "/"
              + operator.getMetadata().getName() + " to zero";
      System.out.println(stop);
      System.out.println((operator == null ? "This" : "and") + " removes the finalizer " + Names.FINALIZER
          + " from every object; an object being deleted is handed to the built-in garbage collector.");
      if (!yes && !confirmed()) {
        throw new CliException(ExitCodes.USAGE, "not confirmed; nothing done (pass --yes to run without asking)");
      }
      Uninstall uninstall = new Uninstall(cluster.client,
          new KubeApi(cluster.client, new RateLimiter(qps, (int) Math.max(1, qps * 2)),
              CallCounts.NONE));
      if (operator != null) {
        cluster.call("scale the operator to zero", () -> {
          try {
            OperatorStop.stop(cluster.client, operator.getMetadata().getNamespace(), operator.getMetadata().getName(),
                Duration.ofMinutes(2));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCodes.ERROR, "interrupted while the operator stopped");
          } catch (IllegalStateException e) {
            throw new CliException(ExitCodes.ERROR, e.getMessage() + "; nothing released");
          }
          return null;
        });
      }
      Uninstall.Summary summary = cluster.call("release", uninstall::run);
      System.out.println("released " + summary.released() + " object" + (summary.released() == 1 ? "" : "s")
          + ", handed over " + summary.handedOver() + " being deleted"
          + (summary.failed() == 0 ? "" : ", " + summary.failed() + " could not be released"));
      if (!summary.notListed().isEmpty()) {
        throw new CliException(ExitCodes.ERROR, "could not list " + String.join(", ", summary.notListed())
            + ": their objects may still carry " + Names.FINALIZER + "; get the rights to list, patch and delete"
            + " them (or bring the API back) and run kubectl syncgc release again");
      }
      if (summary.failed() > 0) {
        throw new CliException(ExitCodes.ERROR, summary.failed() + " object(s) could not be released (see the"
            + " warnings above); fix the cause and run kubectl syncgc release again");
      }
      return ExitCodes.OK;
    }
  }

  /** The Deployment named, else the one the chart's label finds; null when there is none. */
  private Deployment operator(Cluster cluster) {
    var deployments = cluster.client.apps().deployments();
    if (operatorDeployment != null) {
      String namespace = operatorNamespace != null ? operatorNamespace : cluster.namespace;
      Deployment d = cluster.call("get deployment " + namespace + "/" + operatorDeployment,
          () -> deployments.inNamespace(namespace).withName(operatorDeployment).get());
      if (d == null) {
        throw new CliException(ExitCodes.NOT_FOUND, "Deployment " + operatorDeployment + " not found in namespace "
            + namespace + " (use --operator-namespace)");
      }
      return d;
    }
    List<Deployment> found = cluster.call("list deployments labelled " + OperatorInfo.POD_SELECTOR, () ->
        (operatorNamespace != null ? deployments.inNamespace(operatorNamespace).withLabelSelector(OperatorInfo.POD_SELECTOR)
            : deployments.inAnyNamespace().withLabelSelector(OperatorInfo.POD_SELECTOR)).list().getItems());
    if (found.size() > 1) {
      throw new CliException(ExitCodes.USAGE, "several operator Deployments: " + String.join(", ", found.stream()
          .map(d -> d.getMetadata().getNamespace() + "/" + d.getMetadata().getName()).toList())
          + " (choose one with --operator-namespace and --operator-deployment)");
    }
    return found.isEmpty() ? null : found.get(0);
  }

  private static boolean confirmed() {
    if (System.console() == null) {
      throw new CliException(ExitCodes.USAGE, "no terminal to ask for confirmation on; nothing done (pass --yes)");
    }
    System.out.print("Continue? [y/N] ");
    System.out.flush();
    try {
      String answer = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      return answer != null && List.of("y", "yes").contains(answer.trim().toLowerCase(Locale.ROOT));
    } catch (IOException e) {
      return false;
    }
  }
}
