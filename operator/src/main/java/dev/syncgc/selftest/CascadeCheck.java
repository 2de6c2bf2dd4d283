package dev.syncgc.selftest;

import dev.syncgc.core.model.Names;
import dev.syncgc.core.settings.GoDuration;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * What {@code helm test} runs (the chart's {@code templates/tests/cascade.yaml}, with the operator
 * image's java): proves that the installed operator works on a tiny tree of ConfigMaps.
 *
 * <ol>
 *   <li>an owner annotated {@code syncgc.dev/propagation: Synchronous} gets syncgc's finalizer;
 *   <li>a dependent of it, which owns another, is created; the owner is deleted;
 *   <li>when the owner is gone, both dependents must be gone already (synchronous: leaves first).
 * </ol>
 *
 * Whatever happens, what it created is removed at the end (syncgc's finalizer taken off first if
 * syncgc left it). Prints one line per step; exits 0 when every step held, 1 otherwise.
 * Environment: {@code SYNCGC_TEST_NAMESPACE} (default: the client's namespace),
 * {@code SYNCGC_TEST_NAME} (prefix of the objects' names), {@code SYNCGC_TEST_TIMEOUT} (per step, 2m),
 * {@code SYNCGC_TEST_OPERATOR} (the operator's namespace/deployment, named in a failure).
 */
public final class CascadeCheck {
  static final String PROPAGATION = "syncgc.dev/propagation";
  private static final Duration POLL = Duration.ofMillis(200);

  private final KubernetesClient client;
  private final String namespace;
  private final String prefix;
  private final Duration timeout;
  private final PrintStream out;
  private final List<String> created = new ArrayList<>();

  public CascadeCheck(KubernetesClient client, String namespace, String prefix, Duration timeout,
      PrintStream out) {
    this.client = client;
    this.namespace = namespace;
    this.prefix = prefix;
    this.timeout = timeout;
    this.out = out;
  }

  public static void main(String[] args) {
    String name = env("SYNCGC_TEST_NAME", "syncgc-test");
    Duration timeout = GoDuration.parse(env("SYNCGC_TEST_TIMEOUT", "2m"));
    int code;
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      String namespace = env("SYNCGC_TEST_NAMESPACE", client.getNamespace() == null ? "default" : client.getNamespace());
      code = new CascadeCheck(client, namespace, name + "-" + suffix(), timeout, System.out).run();
    } catch (RuntimeException e) {
      System.out.println("FAIL: " + e);
      code = 1;
    }
    System.exit(code);
  }

  /** Runs the steps and cleans up; 0 when they held, 1 otherwise (the reason printed). */
  public int run() {
    long start = System.nanoTime();
    try {
      steps();
      out.printf("PASS: syncgc finalized an opted-in object and deleted its 2 dependents before it (%d ms)%n",
          Duration.ofNanos(System.nanoTime() - start).toMillis());
      return 0;
    } catch (StepFailed e) {
      out.println("FAIL: " + e.getMessage());
      return 1;
    } catch (RuntimeException e) {
      out.println("FAIL: " + e);
      return 1;
    } finally {
      cleanUp();
    }
  }

  private void steps() {
    String owner = prefix + "-owner";
    String child = prefix + "-child";
    String grandchild = prefix + "-grandchild";
    out.printf("namespace %s, objects %s-*, each step within %ss%n", namespace, prefix, timeout.toSeconds());

    ConfigMap o = create(new ConfigMapBuilder().withNewMetadata().withName(owner).withNamespace(namespace)
        .withLabels(Map.of("app.kubernetes.io/name", "syncgc-test"))
        .withAnnotations(Map.of(PROPAGATION, "Synchronous")).endMetadata()
        .withData(Map.of("what", "syncgc helm test: owner")).build());
    long t = System.nanoTime();
    String operator = System.getenv("SYNCGC_TEST_OPERATOR"); // namespace/deployment, from the chart
    await("syncgc puts its finalizer " + Names.FINALIZER + " on " + owner + " (is the operator running? "
        + (operator == null ? "see its logs" : "kubectl -n " + operator.replace("/", " logs deploy/")) + ")", () -> {
      ConfigMap now = get(owner);
      return now != null && now.getMetadata().getFinalizers().contains(Names.FINALIZER);
    });
    out.printf("ok: %s opted in got the finalizer after %d ms%n", owner, millisSince(t));

    ConfigMap c = create(dependent(child, o));
    create(dependent(grandchild, c));
    out.printf("ok: %s owns %s, which owns %s%n", owner, child, grandchild);

    t = System.nanoTime();
    client.configMaps().inNamespace(namespace).withName(owner).delete();
    await("the synchronous deletion of " + owner + " completes", () -> get(owner) == null);
    List<String> left = new ArrayList<>();
    for (String d : List.of(child, grandchild)) {
      if (get(d) != null) {
        left.add(d);
      }
    }
    if (!left.isEmpty()) {
      throw new StepFailed(owner + " was deleted while its dependents " + left + " were still there:"
          + " syncgc did not hold it (is ConfigMap tracked and namespace " + namespace + " watched?)");
    }
    out.printf("ok: %s deleted after its dependents, cascade took %d ms%n", owner, millisSince(t));
  }

  private ConfigMap dependent(String name, ConfigMap owner) {
    OwnerReference ref = new OwnerReferenceBuilder().withApiVersion("v1").withKind("ConfigMap")
        .withName(owner.getMetadata().getName()).withUid(owner.getMetadata().getUid())
        .withBlockOwnerDeletion(true).build();
    return new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(namespace)
        .withLabels(Map.of("app.kubernetes.io/name", "syncgc-test"))
        .withOwnerReferences(ref).endMetadata()
        .withData(Map.of("what", "syncgc helm test: dependent")).build();
  }

  private ConfigMap create(ConfigMap object) {
    ConfigMap made = client.configMaps().inNamespace(namespace).resource(object).create();
    created.add(made.getMetadata().getName());
    return made;
  }

  private ConfigMap get(String name) {
    return client.configMaps().inNamespace(namespace).withName(name).get();
  }

  private void await(String what, BooleanSupplier done) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new StepFailed("not done within " + timeout.toSeconds() + "s: " + what);
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StepFailed("interrupted while waiting: " + what);
      }
    }
  }

  /** Removes what this test created: syncgc's finalizer first (a failed run may have left it), then the object. */
  private void cleanUp() {
    for (int i = created.size() - 1; i >= 0; i--) {
      String name = created.get(i);
      try {
        ConfigMap now = get(name);
        if (now == null) {
          continue;
        }
        if (now.getMetadata().getFinalizers().contains(Names.FINALIZER)) {
          client.configMaps().inNamespace(namespace).withName(name).edit(cm -> {
            cm.getMetadata().getFinalizers().remove(Names.FINALIZER);
            return cm;
          });
        }
        client.configMaps().inNamespace(namespace).withName(name).delete();
        out.printf("cleaned up %s%n", name);
      } catch (RuntimeException e) {
        out.printf("could not clean up %s/%s: %s%n", namespace, name, e);
      }
    }
  }

  private static long millisSince(long nanos) {
    return Duration.ofNanos(System.nanoTime() - nanos).toMillis();
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isBlank() ? fallback : v;
  }

  private static String suffix() {
    String alphabet = "bcdfghjklmnpqrstvwxz2456789";
    SecureRandom random = new SecureRandom();
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 5; i++) {
      s.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return s.toString();
  }

  private static final class StepFailed extends RuntimeException {
    StepFailed(String message) {
      super(message);
    }
  }
}
