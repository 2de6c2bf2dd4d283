package dev.syncgc.e2e.soak;

import static dev.syncgc.e2e.support.SpecNames.FINALIZER;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.syncgc.e2e.support.KubectlSyncgc;
import dev.syncgc.e2e.support.Namespaces;
import dev.syncgc.e2e.support.ProcessRunner;
import dev.syncgc.e2e.support.SharedOperator;
import dev.syncgc.e2e.support.TestCluster;
import dev.syncgc.e2e.support.TestCrds;
import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code kubectl syncgc}, the real plugin (launcher and jar, found by kubectl on PATH), against the
 * real API server and the running operator. Most important: on seeded random graphs (the soak's
 * generator: diamonds, rings under the tree and kept by an outside owner, second solid owners,
 * waves, another controller's finalizer, Pods, invalid references), the objects {@code preview}
 * says a deletion takes are exactly the objects the deletion then takes.
 */
@ExtendWith(SharedOperator.Extension.class)
class KubectlPluginIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration SETTLE = Duration.ofMinutes(2);
  private static final Set<Scenario.Shape> OPTED_IN = Set.of(Scenario.Shape.SYNC_ANNOTATION,
      Scenario.Shape.SYNC_POLICY, Scenario.Shape.ORPHAN_ANNOTATION, Scenario.Shape.ORPHAN_POLICY,
      Scenario.Shape.CLUSTER_SYNC);

  private final KubernetesClient client = TestCluster.get().client();
  private final ObjectFactory objects = new ObjectFactory(client);

  @Test
  void previewNamesExactlyTheObjectsTheDeletionThenDeletesOnRandomGraphs() throws Exception {
    String seedText = System.getProperty("syncgc.plugin.seed", "");
    long seed = seedText.isBlank() ? new SecureRandom().nextLong() : Long.parseLong(seedText);
    System.out.println("[KubectlPluginIT] seed " + seed + " (replay: -Dsyncgc.plugin.seed=" + seed + ")");
    TestCrds.install(client);
    Generator generator = new Generator(new Random(seed), 12);
    String prefix = "plugin-" + Namespaces.randomSuffix(4);
    int compared = 0;
    try (Holds holds = new Holds(objects)) {
      for (int number = 1; compared < 6; number++) {
        Generator.Round round = generator.round(prefix, number, 3);
        List<Scenario> chosen = round.scenarios().stream().filter(s -> OPTED_IN.contains(s.shape)).toList();
        if (chosen.isEmpty()) {
          continue;
        }
        compared += compare(seed, prefix + "-r" + number, round, chosen, holds);
      }
    }
  }

  /** Creates the round's chosen scenarios, previews each root, deletes the roots, compares; returns how many. */
  private int compare(long seed, String tag, Generator.Round round, List<Scenario> chosen, Holds holds)
      throws Exception {
    Set<String> namespaces = new LinkedHashSet<>();
    chosen.stream().filter(s -> s.namespace != null).forEach(s -> namespaces.add(s.namespace));
    namespaces.add(round.miscNamespace());
    List<SoakObject> all = new ArrayList<>(round.keepers());
    chosen.forEach(s -> all.addAll(s.objects));
    round.misc().stream().filter(m -> chosen.stream().anyMatch(s -> s.objects.contains(m.invalidOwner))).forEach(all::add);
    try {
      namespaces.forEach(ns -> client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns)
          .endMetadata().build()).create());
      all.stream().filter(o -> o.kind == SoakObject.Kind.POD).map(o -> o.namespace).distinct()
          .forEach(ns -> Namespaces.awaitDefaultServiceAccount(client, ns));
      for (Scenario s : chosen) {
        if (s.policy != null) {
          Policies.create(client, s, tag, s.shape == Scenario.Shape.SYNC_POLICY ? Generator.SYNCHRONOUS : Generator.ORPHAN);
        }
      }
      objects.createAll(all);
      holds.watch(all);
      for (Scenario s : chosen) {
        await(s.root + " opted in").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
            .until(() -> hasFinalizer(s.root));
      }
      List<Set<String>> predicted = new ArrayList<>();
      for (Scenario s : chosen) {
        predicted.add(preview(s));
      }
      chosen.forEach(s -> objects.resource(s.root).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete());
      for (int i = 0; i < chosen.size(); i++) {
        Scenario s = chosen.get(i);
        Set<String> expected = predicted.get(i);
        // what this deletion can touch: its own objects, the keepers and the misc objects (the other
        // scenarios' objects are deleted by their own roots at the same time)
        List<SoakObject> candidates = new ArrayList<>(s.objects);
        candidates.addAll(round.keepers());
        candidates.addAll(all.stream().filter(o -> round.misc().contains(o)).toList());
        try {
          await(s + ": the deletion ends").atMost(SETTLE).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
              .until(() -> objects.current(s.root) == null && expected.stream().allMatch(uid -> gone(all, uid)));
        } catch (RuntimeException e) {
          throw new AssertionError("seed " + seed + ", " + s + ": still there " + SETTLE + " after the deletion: "
              + all.stream().filter(o -> expected.contains(o.uid) && objects.current(o) != null).toList(), e);
        }
        Set<String> actual = candidates.stream().filter(o -> objects.current(o) == null).map(o -> o.uid)
            .collect(Collectors.toCollection(HashSet::new));
        assertEquals(names(all, expected), names(all, actual), "seed " + seed + ", " + s
            + ": preview's objects to delete (left) against the objects deleted (right)");
        System.out.printf("[KubectlPluginIT] %s: preview said %d objects, the deletion deleted the same %d%n", s,
            expected.size(), actual.size());
      }
      return chosen.size();
    } finally {
      holds.releaseImmediately(true);
      Policies.deleteRound(client, tag);
      namespaces.forEach(ns -> client.namespaces().withName(ns).delete());
      all.stream().filter(o -> !o.kind.namespaced && o.uid != null).forEach(o -> objects.resource(o).delete());
      holds.releaseImmediately(false);
    }
  }

  /** {@code kubectl syncgc preview ... -o json}: the uids it says would be deleted. */
  private Set<String> preview(Scenario s) throws Exception {
    SoakObject root = s.root;
    List<String> args = new ArrayList<>(List.of("preview",
        root.kind.registry.replace("test.syncgc.dev/", "") + ".test.syncgc.dev/" + root.name, "-o", "json"));
    if (root.namespace != null) {
      args.addAll(List.of("-n", root.namespace));
    }
    ProcessRunner.Result r = KubectlSyncgc.run(args.toArray(String[]::new)).assertOk();
    JsonNode out = JSON.readTree(r.stdout());
    assertTrue(out.path("optedIn").asBoolean(), s + ": preview says the root is not opted in: " + r.stdout());
    Set<String> uids = new HashSet<>();
    out.path("delete").forEach(o -> uids.add(o.path("uid").asText()));
    return uids;
  }

  private boolean hasFinalizer(SoakObject o) {
    GenericKubernetesResource r = objects.current(o);
    return r != null && r.getMetadata().getFinalizers().contains(FINALIZER);
  }

  private boolean gone(List<SoakObject> all, String uid) {
    return all.stream().filter(o -> uid.equals(o.uid)).allMatch(o -> objects.current(o) == null);
  }

  private static Set<String> names(List<SoakObject> all, Set<String> uids) {
    return all.stream().filter(o -> uids.contains(o.uid)).map(SoakObject::toString)
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }
}
