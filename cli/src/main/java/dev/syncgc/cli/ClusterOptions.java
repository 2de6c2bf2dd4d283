package dev.syncgc.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/** kubectl's usual flags, and the output format. */
public final class ClusterOptions {
  @Option(names = "--kubeconfig", description = "Path to the kubeconfig file (default: the files of $KUBECONFIG merged"
      + " as kubectl merges them, else ~/.kube/config).")
  public String kubeconfig;

  @Option(names = "--context", description = "The kubeconfig context to use (default: its current-context).")
  public String context;

  @Option(names = {"-s", "--server"}, paramLabel = "URL", description = "The API server's address (e.g."
      + " https://10.0.0.1:6443), instead of the kubeconfig cluster's.")
  public String server;

  @Option(names = "--token", paramLabel = "TOKEN", description = "A bearer token for the API server, instead of the"
      + " kubeconfig user's token or credential plugin.")
  public String token;

  @Option(names = "--certificate-authority", paramLabel = "FILE", description = "A CA certificate file (PEM) to check"
      + " the API server's certificate with, instead of the kubeconfig cluster's CA (and its insecure-skip-tls-verify).")
  public String certificateAuthority;

  @Option(names = "--as", paramLabel = "USER", description = "Impersonate this user (or service account,"
      + " system:serviceaccount:NAMESPACE:NAME), as kubectl --as.")
  public String as;

  @Option(names = "--as-group", paramLabel = "GROUP", description = "Impersonate this group too; repeat for several"
      + " (needs --as).")
  public List<String> asGroups = new ArrayList<>();

  @Option(names = {"-n", "--namespace"}, description = "The namespace (default: the context's, else 'default').")
  public String namespace;

  @Option(names = "--request-timeout", paramLabel = "DURATION", defaultValue = "30s", converter = Timeout.class,
      description = "How long to wait for one request to the API server before giving up (1s, 2m, 1m30s; a bare"
          + " number is seconds; 0 waits forever; default: ${DEFAULT-VALUE}).")
  public Duration requestTimeout = Duration.ofSeconds(30);

  @Option(names = {"-v", "--v"}, paramLabel = "LEVEL", defaultValue = "0", description = "Log verbosity, as kubectl's:"
      + " 6 or more logs each request to the API server (method, URL, status, time) on stderr.")
  public int verbosity;

  @Option(names = {"-o", "--output"}, defaultValue = "text",
      description = "Output: text, json or yaml (default: ${DEFAULT-VALUE}).")
  public String output;

  /** The verbosity from which every request is logged, as kubectl's {@code -v=6}. */
  public static final int LOG_REQUESTS = 6;

  /** A duration as kubectl's {@code --request-timeout} takes it: Go's units h, m, s, ms, or a bare number of seconds. */
  public static final class Timeout implements ITypeConverter<Duration> {
    private static final Pattern PART = Pattern.compile("(\\d+)(ms|h|m|s)");

    @Override
    public Duration convert(String value) {
      String v = value.trim();
      if (v.matches("\\d+")) {
        return Duration.ofSeconds(Long.parseLong(v));
      }
      Matcher m = PART.matcher(v);
      Duration total = Duration.ZERO;
      int end = 0;
      while (m.find() && m.start() == end) {
        long n = Long.parseLong(m.group(1));
        total = total.plus(switch (m.group(2)) {
          case "h" -> Duration.ofHours(n);
          case "m" -> Duration.ofMinutes(n);
          case "s" -> Duration.ofSeconds(n);
          default -> Duration.ofMillis(n);
        });
        end = m.end();
      }
      if (v.isEmpty() || end != v.length()) {
        throw new CliException(ExitCodes.USAGE, "invalid --request-timeout \"" + value
            + "\" (use e.g. 30s, 2m, 1m30s or 0 for none)");
      }
      return total;
    }
  }
}
