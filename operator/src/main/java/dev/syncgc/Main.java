package dev.syncgc;

import dev.syncgc.config.OperatorConfig;
import dev.syncgc.kube.CommonPool;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Entry point of the operator jar: {@link OperatorConfig} parses the flags, {@link Operator} wires
 * and runs the operator; the {@code release} subcommand runs on its own.
 */
public final class Main {
  private static final Logger log = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) {
    if (CommonPool.ensureParallelism() <= 1) { // before any HTTP client exists
      log.warn("the common ForkJoinPool has parallelism 1 (-D{}=1?): every HTTP "
          + "response will start a thread of its own", "java.util.concurrent.ForkJoinPool.common.parallelism");
    }
    CommandLine cli = new CommandLine(new OperatorConfig());
    cli.setExecutionStrategy(Main::execute);
    int code = cli.execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  private static int execute(CommandLine.ParseResult parsed) {
    Integer help = CommandLine.executeHelpRequest(parsed);
    if (help != null) {
      return help;
    }
    if (parsed.hasSubcommand()) {
      return new CommandLine.RunLast().execute(parsed);
    }
    OperatorConfig config = (OperatorConfig) parsed.commandSpec().userObject();
    config.validate();
    try {
      return new Operator(config).run();
    } catch (StartupFailure e) {
      log.error("{}", e.getMessage());
      return 1;
    } catch (KubernetesClientException e) {
      log.error("start-up failed: {}{}", e.getMessage(), e.getCode() == 403
          ? "; the operator's identity lacks a permission: install the chart's RBAC (helm/syncgc) or grant it" : "");
      return 1;
    } catch (Exception e) {
      throw new CommandLine.ExecutionException(parsed.commandSpec().commandLine(), "start-up failed", e);
    }
  }
}
