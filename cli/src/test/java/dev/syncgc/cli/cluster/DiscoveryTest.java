package dev.syncgc.cli.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ClusterOptions;
import dev.syncgc.cli.ExitCodes;
import dev.syncgc.kube.TrackedKind;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery against a fake API server: aggregated ({@code APIGroupDiscoveryList}) in two requests where
 * the server serves it, group by group where it does not, the same kinds either way.
 */
class DiscoveryTest {
  private static final String LIST_WATCH_DELETE = "[\"list\",\"watch\",\"delete\",\"get\"]";
  private static final String CORE = """
      {"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{},"versions":[
        {"version":"v1","freshness":"Current","resources":[
          {"resource":"configmaps","responseKind":{"group":"","version":"v1","kind":"ConfigMap"},"scope":"Namespaced",
           "verbs":%1$s,"shortNames":["cm"]},
          {"resource":"bindings","responseKind":{"group":"","version":"v1","kind":"Binding"},"scope":"Namespaced",
           "verbs":["create"]}]}]}]}
      """.formatted(LIST_WATCH_DELETE);
  private static final String GROUPS = """
      {"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[
        {"metadata":{"name":"example.syncgc.dev"},"versions":[
          {"version":"v2","freshness":"Current","resources":[{"resource":"widgets",
            "responseKind":{"group":"example.syncgc.dev","version":"v2","kind":"Widget"},"scope":"Namespaced",
            "verbs":%1$s,"subresources":[{"subresource":"status","verbs":["get"]}]}]},
          {"version":"v1","freshness":"Current","resources":[{"resource":"widgets",
            "responseKind":{"group":"example.syncgc.dev","version":"v1","kind":"Widget"},"scope":"Namespaced",
            "verbs":%1$s}]}]},
        {"metadata":{"name":"metrics.example"},"versions":[
          {"version":"v1","freshness":"Stale","resources":[]}]},
        {"metadata":{"name":"rbac.authorization.k8s.io"},"versions":[
          {"version":"v1","freshness":"Current","resources":[{"resource":"clusterroles",
            "responseKind":{"group":"rbac.authorization.k8s.io","version":"v1","kind":"ClusterRole"},
            "scope":"Cluster","verbs":%1$s}]}]}]}
      """.formatted(LIST_WATCH_DELETE);
  /** The same cluster as the server of before aggregated discovery serves it. */
  private static final Map<String, String> GROUP_BY_GROUP = Map.of(
      "/api", "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"]}",
      "/apis", """
          {"kind":"APIGroupList","groups":[
            {"name":"example.syncgc.dev","versions":[{"groupVersion":"example.syncgc.dev/v2","version":"v2"},
              {"groupVersion":"example.syncgc.dev/v1","version":"v1"}],
             "preferredVersion":{"groupVersion":"example.syncgc.dev/v2","version":"v2"}},
            {"name":"rbac.authorization.k8s.io","versions":[{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}],
             "preferredVersion":{"groupVersion":"rbac.authorization.k8s.io/v1","version":"v1"}}]}
          """,
      "/api/v1", """
          {"kind":"APIResourceList","groupVersion":"v1","resources":[
            {"name":"configmaps","namespaced":true,"kind":"ConfigMap","verbs":%1$s,"shortNames":["cm"]},
            {"name":"bindings","namespaced":true,"kind":"Binding","verbs":["create"]}]}
          """.formatted(LIST_WATCH_DELETE),
      "/apis/example.syncgc.dev/v2", """
          {"kind":"APIResourceList","groupVersion":"example.syncgc.dev/v2","resources":[
            {"name":"widgets","namespaced":true,"kind":"Widget","verbs":%1$s},
            {"name":"widgets/status","namespaced":true,"kind":"Widget","verbs":["get"]}]}
          """.formatted(LIST_WATCH_DELETE),
      "/apis/rbac.authorization.k8s.io/v1", """
          {"kind":"APIResourceList","groupVersion":"rbac.authorization.k8s.io/v1","resources":[
            {"name":"clusterroles","namespaced":false,"kind":"ClusterRole","verbs":%1$s}]}
          """.formatted(LIST_WATCH_DELETE));

  @TempDir Path dir;
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private HttpServer server;

  @AfterEach
  void stop() {
    server.stop(0);
  }

  /** A fake API server; {@code aggregated}: it answers the Accept of aggregated discovery. */
  private Cluster cluster(boolean aggregated) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", x -> {
      String path = x.getRequestURI().getPath();
      requests.add(path);
      String accept = String.valueOf(x.getRequestHeaders().getFirst("Accept"));
      String body = aggregated && accept.contains("as=APIGroupDiscoveryList")
          ? path.equals("/api") ? CORE : path.equals("/apis") ? GROUPS : null : GROUP_BY_GROUP.get(path);
      byte[] bytes = (body == null ? "{\"kind\":\"Status\",\"code\":404}" : body).getBytes(StandardCharsets.UTF_8);
      x.getResponseHeaders().set("Content-Type", "application/json");
      x.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
      x.getResponseBody().write(bytes);
      x.close();
    });
    server.start();
    Path kubeconfig = Files.writeString(dir.resolve("config"), "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n"
        + "  cluster: {server: 'http://127.0.0.1:" + server.getAddress().getPort() + "'}\nusers:\n- name: u\n"
        + "  user: {token: t}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n");
    ClusterOptions options = new ClusterOptions();
    options.kubeconfig = kubeconfig.toString();
    return Cluster.connect(options);
  }

  private static List<String> served(Kinds kinds) {
    return kinds.served().stream().map(s -> s.kind().apiVersion() + " " + s.kind().plural() + " "
        + (s.kind().namespaced() ? "namespaced" : "cluster") + " " + s.shortNames() + (s.tracked() ? " tracked" : ""))
        .toList();
  }

  private static final List<String> KINDS = List.of("v1 configmaps namespaced [cm] tracked",
      "example.syncgc.dev/v2 widgets namespaced [] tracked",
      "rbac.authorization.k8s.io/v1 clusterroles cluster [] tracked");

  @Test
  void aggregatedDiscoveryReadsEveryGroupsPreferredVersionInTwoRequests() throws IOException {
    try (Cluster cluster = cluster(true)) {
      Kinds kinds = new Kinds(cluster);

      assertEquals(KINDS, served(kinds));
      assertEquals(List.of("/api", "/apis"), requests.stream().sorted().toList());
      TrackedKind widget = kinds.named("widget");
      assertEquals("Widget", widget.kind());
      assertTrue(kinds.resolve("binding").found(), "a kind without list is still a name");
    }
  }

  @Test
  void aServerThatDoesNotAnswerIsNamedAsUnreachable() throws IOException {
    try (Cluster cluster = cluster(true)) {
      server.stop(0); // its port now refuses connections
      CliException e = assertThrows(CliException.class, () -> new Kinds(cluster));
      assertEquals(ExitCodes.NO_CLUSTER, e.exitCode());
      assertTrue(e.getMessage().startsWith("discovery: cannot reach the API server at http://127.0.0.1:"), e.getMessage());
    }
  }

  @Test
  void aServerWithoutAggregatedDiscoveryIsAskedGroupByGroupForTheSameKinds() throws IOException {
    try (Cluster cluster = cluster(false)) {
      assertEquals(KINDS, served(new Kinds(cluster)));
      assertTrue(requests.containsAll(List.of("/api/v1", "/apis/example.syncgc.dev/v2",
          "/apis/rbac.authorization.k8s.io/v1")), requests.toString());
    }
  }
}
