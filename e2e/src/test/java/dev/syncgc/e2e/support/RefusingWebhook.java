package dev.syncgc.e2e.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.awaitility.Awaitility;

/**
 * A validating admission webhook on loopback that denies every DELETE of an object labelled
 * {@link AdmissionPolicies#PROTECTED} with the status code it is given, as Crossplane's {@code Usage}
 * webhook denies a DELETE with 409: the API server keeps the code and prefixes the message with
 * {@code admission webhook "NAME" denied the request}. Its certificate is made for the test (keytool,
 * self-signed for 127.0.0.1, given to the API server as the CA bundle). Only where kube-apiserver runs
 * on this host (the local control plane), not on kind.
 */
public final class RefusingWebhook implements AutoCloseable {
  /** The message the webhook gives; the API server's answer quotes it. */
  public static final String MESSAGE = "This resource is in-use by 1 Usage(s), including the Usage \"e2e\"";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final char[] PASSWORD = "e2e-webhook".toCharArray();

  private final KubernetesClient client;
  private final String name;
  private final HttpsServer server;
  private final AtomicInteger denied = new AtomicInteger();

  private RefusingWebhook(KubernetesClient client, String name, HttpsServer server) {
    this.client = client;
    this.name = name;
    this.server = server;
  }

  /**
   * Denies DELETEs of protected {@code group}/{@code resource} objects in {@code namespace} with
   * {@code code} (and the reason {@code reason}, as the webhook chose it); returns once the API server
   * calls it, as told by {@code refusesNow}.
   */
  public static RefusingWebhook deny(KubernetesClient client, String name, String group, String resource,
      String namespace, int code, String reason, BooleanSupplier refusesNow) throws Exception {
    Path dir = Files.createTempDirectory("e2e-webhook");
    Path store = dir.resolve("tls.p12");
    keytool("-genkeypair", "-alias", "webhook", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
        "-dname", "CN=127.0.0.1", "-ext", "SAN=ip:127.0.0.1", "-ext", "BC:c=ca:true", "-storetype", "PKCS12",
        "-keystore", store.toString(), "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD));
    String pem = keytool("-exportcert", "-rfc", "-alias", "webhook", "-keystore", store.toString(), "-storepass",
        new String(PASSWORD));
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      keys.load(in, PASSWORD);
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, PASSWORD);
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    HttpsServer server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(tls));
    server.setExecutor(Executors.newFixedThreadPool(2));
    RefusingWebhook webhook = new RefusingWebhook(client, name, server);
    server.createContext("/validate", x -> webhook.review(x, code, reason));
    server.start();
    String yaml = """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingWebhookConfiguration
        metadata: {name: %1$s}
        webhooks:
        - name: %1$s.e2e.syncgc.dev
          admissionReviewVersions: [v1]
          sideEffects: None
          failurePolicy: Ignore
          timeoutSeconds: 5
          clientConfig:
            url: https://127.0.0.1:%2$d/validate
            caBundle: %3$s
          namespaceSelector:
            matchLabels: {kubernetes.io/metadata.name: %4$s}
          objectSelector:
            matchExpressions: [{key: %5$s, operator: Exists}]
          rules:
          - apiGroups: ["%6$s"]
            apiVersions: ["*"]
            operations: ["DELETE"]
            resources: ["%7$s"]
        """.formatted(name, server.getAddress().getPort(),
        Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.US_ASCII)), namespace,
        AdmissionPolicies.PROTECTED, group, resource);
    client.load(new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8))).forceConflicts().serverSideApply();
    Awaitility.await("the webhook refuses a DELETE").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(refusesNow::getAsBoolean);
    return webhook;
  }

  /** How many DELETEs it denied. */
  public int denied() {
    return denied.get();
  }

  private void review(HttpExchange x, int code, String reason) throws IOException {
    JsonNode review = JSON.readTree(x.getRequestBody());
    ObjectNode response = JSON.createObjectNode();
    response.put("uid", review.path("request").path("uid").asText());
    response.put("allowed", false);
    ObjectNode status = response.putObject("status");
    status.put("code", code);
    status.put("reason", reason);
    status.put("message", MESSAGE);
    ObjectNode out = JSON.createObjectNode();
    out.put("apiVersion", "admission.k8s.io/v1");
    out.put("kind", "AdmissionReview");
    out.set("response", response);
    byte[] body = JSON.writeValueAsBytes(out);
    denied.incrementAndGet();
    x.getResponseHeaders().add("Content-Type", "application/json");
    x.sendResponseHeaders(200, body.length);
    x.getResponseBody().write(body);
    x.close();
  }

  /** Lifts the refusal: the configuration deleted (the API server stops calling at once), the server stopped. */
  @Override
  public void close() {
    client.load(new ByteArrayInputStream(("""
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingWebhookConfiguration
        metadata: {name: %s}
        """).formatted(name).getBytes(StandardCharsets.UTF_8))).delete();
    server.stop(0);
  }

  private static String keytool(String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("keytool " + args[0] + " failed: " + out);
    }
    return out;
  }
}
