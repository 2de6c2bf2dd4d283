package dev.syncgc.cli.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import io.fabric8.kubernetes.client.Config;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import picocli.CommandLine;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Kubeconfig handling as kubectl's, no API server needed (nothing is sent). */
class ClusterTest {
  @TempDir Path dir;

  @AfterEach
  void forgetTheFiles() {
    System.clearProperty(Config.KUBERNETES_KUBECONFIG_FILE);
  }

  /** A kubeconfig with one context {@code name} on cluster {@code cluster} at {@code server}. */
  private Path kubeconfig(String file, String name, String cluster, String server, String current) throws IOException {
    return Files.writeString(dir.resolve(file), "apiVersion: v1\nkind: Config\nclusters:\n- name: " + cluster
        + "\n  cluster: {server: '" + server + "'}\nusers:\n- name: " + name + "\n  user: {token: t-" + name + "}\n"
        + "contexts:\n- name: " + name + "\n  context: {cluster: " + cluster + ", user: " + name + ", namespace: ns-"
        + name + "}\n" + (current == null ? "" : "current-context: " + current + "\n"));
  }

  private static ClusterOptions options(String... kubeconfigContextAs) {
    ClusterOptions o = new ClusterOptions();
    o.kubeconfig = kubeconfigContextAs.length > 0 ? kubeconfigContextAs[0] : null;
    o.context = kubeconfigContextAs.length > 1 ? kubeconfigContextAs[1] : null;
    return o;
  }

  @Test
  void theFilesOfKubeconfigAreMergedTheFirstToSetAnEntryWins() throws IOException {
    Path first = kubeconfig("first", "a", "shared", "https://first.example:6443", null);
    Path second = kubeconfig("second", "b", "shared", "https://second.example:6443", "b");
    System.setProperty(Config.KUBERNETES_KUBECONFIG_FILE, first + File.pathSeparator + second);

    try (Cluster current = Cluster.connect(options())) {
      // the current-context of the second file, its cluster entry as the first file set it
      assertEquals("https://first.example:6443/", current.client.getConfiguration().getMasterUrl());
      assertEquals("t-b", current.client.getConfiguration().getAutoOAuthToken());
      assertEquals("ns-b", current.namespace);
    }
    try (Cluster a = Cluster.connect(options(null, "a"))) {
      assertEquals("t-a", a.client.getConfiguration().getAutoOAuthToken());
      assertEquals("ns-a", a.namespace);
    }
  }

  @Test
  void aContextNoFileHasIsAnErrorNotTheCurrentContextsCluster() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");

    CliException e = assertThrows(CliException.class, () -> Cluster.connect(options(file.toString(), "prod")).close());

    assertEquals(ExitCodes.NO_CLUSTER, e.exitCode());
    assertEquals("context \"prod\" not found in " + file + " (kubectl config get-contexts lists them)", e.getMessage());
  }

  @Test
  void asAndAsGroupImpersonateAsKubectlDoes() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");
    ClusterOptions o = options(file.toString());
    o.as = "system:serviceaccount:ns:viewer";
    o.asGroups.add("team-a");
    o.asGroups.add("team-b");

    try (Cluster c = Cluster.connect(o)) {
      assertEquals("system:serviceaccount:ns:viewer", c.client.getConfiguration().getImpersonateUsername());
      assertArrayEquals(new String[] {"team-a", "team-b"}, c.client.getConfiguration().getImpersonateGroups());
    }
    ClusterOptions groupOnly = options(file.toString());
    groupOnly.asGroups.add("team-a");
    CliException e = assertThrows(CliException.class, () -> Cluster.connect(groupOnly).close());
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertTrue(e.getMessage().contains("--as-group needs --as"), e.getMessage());
  }

  private ClusterOptions parsed(String... args) {
    ClusterOptions o = new ClusterOptions();
    new CommandLine(o).parseArgs(args);
    return o;
  }

  @Test
  void kubectlsFlagsTakeThePlaceOfTheKubeconfigsEntries() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");
    Path ca = Files.writeString(dir.resolve("ca.crt"), "-----BEGIN CERTIFICATE-----\n");

    Config config = Cluster.config(parsed("--kubeconfig", file.toString(), "--server", "https://b.example:6443",
        "--token", "t-flag", "--certificate-authority", ca.toString(), "--request-timeout", "1m30s"));

    assertEquals("https://b.example:6443/", config.getMasterUrl());
    assertEquals("t-flag", config.getOauthToken());
    assertEquals(ca.toString(), config.getCaCertFile());
    assertNull(config.getCaCertData());
    assertEquals(90_000, config.getRequestTimeout());
    Config plain = Cluster.config(parsed("--kubeconfig", file.toString()));
    assertEquals("https://a.example:6443/", plain.getMasterUrl());
    assertNull(plain.getOauthToken());
    assertEquals(30_000, plain.getRequestTimeout());
  }

  @Test
  void requestTimeoutTakesKubectlsDurationsAndZeroForNone() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");
    assertEquals(0, Cluster.config(parsed("--kubeconfig", file.toString(), "--request-timeout=0")).getRequestTimeout());
    assertEquals(5_000, Cluster.config(parsed("--kubeconfig", file.toString(), "--request-timeout", "5")).getRequestTimeout());
    assertEquals(Duration.ofMillis(2_500), new ClusterOptions.Timeout().convert("2s500ms"));
    assertEquals(Duration.ofHours(1), new ClusterOptions.Timeout().convert("1h"));
    for (String bad : List.of("soon", "5x", "1m 2s", "")) {
      CliException e = assertThrows(CliException.class, () -> new ClusterOptions.Timeout().convert(bad), bad);
      assertEquals(ExitCodes.USAGE, e.exitCode());
    }
    CliException e = assertThrows(CliException.class, () -> Cluster.config(parsed("--kubeconfig", file.toString(),
        "--certificate-authority", dir.resolve("missing.crt").toString())));
    assertEquals("cannot read --certificate-authority " + dir.resolve("missing.crt"), e.getMessage());
  }

  /** {@code -v=6} logs each request as kubectl does, {@code -v=5} none; {@code --token} is what is sent. */
  @Test
  void verbositySixLogsEveryRequestWithItsStatusAndTime() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    List<String> tokens = new ArrayList<>();
    server.createContext("/version", x -> {
      tokens.add(x.getRequestHeaders().getFirst("Authorization"));
      byte[] body = "{\"major\": \"1\", \"minor\": \"31\", \"gitVersion\": \"v1.31.0\"}".getBytes();
      x.sendResponseHeaders(200, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      String six = logOf(parsed("--kubeconfig", file.toString(), "--server", url, "--token", "t-flag", "-v=6"));
      String five = logOf(parsed("--kubeconfig", file.toString(), "--server", url, "--v", "5"));

      assertTrue(six.matches("I\\d{4} \\d\\d:\\d\\d:\\d\\d\\.\\d{6} GET " + Pattern.quote(url)
          + "/version 200 OK in \\d+ milliseconds\n"), six);
      assertEquals("", five);
      assertEquals(List.of("Bearer t-flag", "Bearer t-a"), tokens);
    } finally {
      server.stop(0);
    }
  }

  /** A 401 names the credentials that were refused, --token's or the kubeconfig's, and how to fix them. */
  @Test
  void aRefusedTokenIsNamedWithTheFixNotAsAnUnreachableServer() throws IOException {
    Path file = kubeconfig("config", "a", "c", "https://a.example:6443", "a");
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", x -> {
      byte[] body = "{\"kind\":\"Status\",\"status\":\"Failure\",\"reason\":\"Unauthorized\",\"code\":401}".getBytes();
      x.sendResponseHeaders(401, body.length);
      x.getResponseBody().write(body);
      x.close();
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      for (boolean flag : new boolean[] {true, false}) {
        ClusterOptions options = flag ? parsed("--kubeconfig", file.toString(), "--server", url, "--token", "wrong")
            : parsed("--kubeconfig", file.toString(), "--server", url);
        try (Cluster c = Cluster.connect(options)) {
          CliException e = assertThrows(CliException.class, () -> new Kinds(c));
          assertEquals(ExitCodes.NO_CLUSTER, e.exitCode());
          assertTrue(e.getMessage().contains(flag
              ? "the token of --token was not accepted (401 Unauthorized); pass a valid one (kubectl create token"
              : "the credentials of the kubeconfig were not accepted (401 Unauthorized)"), e.getMessage());
        }
      }
    } finally {
      server.stop(0);
    }
  }

  private static String logOf(ClusterOptions options) {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    try (Cluster c = Cluster.connect(options, new PrintStream(log, true, StandardCharsets.UTF_8))) {
      c.client.getKubernetesVersion();
    }
    return log.toString(StandardCharsets.UTF_8);
  }
}
