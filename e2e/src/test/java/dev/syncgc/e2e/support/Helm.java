package dev.syncgc.e2e.support;

import dev.syncgc.e2e.support.ProcessRunner.Result;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Runs the {@code helm} binary (through {@link ProcessRunner}) on the chart in {@code helm/syncgc},
 * without any cluster: {@code lint} and {@code template}. Finds helm in {@code HELM} (system property
 * or environment), on {@code PATH}, or in {@code $SYNCGC_CACHE/tools} (default
 * {@code ~/.cache/syncgc/tools}, where {@code e2e/cluster.sh build} links it).
 */
public final class Helm {
  /** Any version the chart's kubeVersion accepts; {@code helm template} would assume 1.20 otherwise. */
  public static final String KUBE_VERSION = "1.31.0";
  public static final String RELEASE = "gc";
  public static final String NAMESPACE = "syncgc-system";
  /**
   * The image every render names: the chart has no default one (the project publishes none) and
   * refuses to render without {@code image.repository}. Passed as the first values file, so that a
   * test's own values and {@code --set}s override it.
   */
  public static final String IMAGE_REPOSITORY = "registry.example.com/syncgc-operator";

  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Pattern DOCUMENT_SEPARATOR = Pattern.compile("(?m)^---\\s*$");
  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private final String binary;
  private final Path chart;

  private Helm(String binary, Path chart) {
    this.binary = binary;
    this.chart = chart;
  }

  public static Helm forChart() {
    return new Helm(locate(), TestCluster.repoRoot().resolve("helm").resolve("syncgc"));
  }

  public Path chart() {
    return chart;
  }

  /** The chart's Chart.yaml, parsed. */
  @SuppressWarnings("unchecked")
  public Map<String, Object> chartYaml() {
    try {
      return SERIALIZATION.unmarshal(Files.readString(chart.resolve("Chart.yaml")), Map.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The chart's appVersion: the default image tag, and the tag the runbook links are pinned to. */
  public String appVersion() {
    return String.valueOf(chartYaml().get("appVersion"));
  }

  /** {@code helm lint --strict} with {@link #IMAGE_REPOSITORY} and {@code args}. */
  public Result lint(String... args) {
    List<String> command = new ArrayList<>(List.of("lint", "--strict", chart.toString(),
        "--set", "image.repository=" + IMAGE_REPOSITORY));
    command.addAll(List.of(args));
    return run(command);
  }

  /**
   * {@code helm template} of release {@value #RELEASE} in namespace {@value #NAMESPACE}, with image
   * {@link #IMAGE_REPOSITORY}, the given values file content (may be empty) and extra arguments
   * ({@code --set ...}).
   */
  public Result template(String valuesYaml, String... args) {
    String image = "image:\n  repository: " + IMAGE_REPOSITORY + "\n";
    return template(List.of(image, valuesYaml == null ? "" : valuesYaml), args);
  }

  /** {@code helm template} with no image: the chart must refuse it. */
  public Result templateWithoutImage(String... args) {
    return template(List.of(), args);
  }

  /** {@code helm template} with one values file per content (a blank one left out), in that order. */
  private Result template(List<String> valuesYamls, String... args) {
    List<String> command = new ArrayList<>(List.of("template", RELEASE, chart.toString(),
        "--namespace", NAMESPACE, "--kube-version", KUBE_VERSION));
    List<Path> files = new ArrayList<>();
    try {
      for (String valuesYaml : valuesYamls) {
        if (!valuesYaml.isBlank()) {
          Path file = Files.createTempFile("syncgc-values-", ".yaml");
          files.add(file);
          Files.writeString(file, valuesYaml, StandardCharsets.UTF_8);
          command.addAll(List.of("--values", file.toString()));
        }
      }
      command.addAll(List.of(args));
      return run(command);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      files.forEach(file -> file.toFile().delete());
    }
  }

  /** {@code helm template} as a user without a cluster would first type it: no {@code --kube-version}. */
  public Result templateWithoutKubeVersion() {
    return run(List.of("template", RELEASE, chart.toString(), "--namespace", NAMESPACE,
        "--set", "image.repository=" + IMAGE_REPOSITORY));
  }

  /** Renders the chart, which must succeed, and parses every document. */
  public Rendered renderValues(String valuesYaml, String... args) {
    Result result = template(valuesYaml, args);
    if (!result.ok()) {
      throw new AssertionError("helm template failed: " + result.describe());
    }
    return Rendered.parse(result.stdout());
  }

  /** {@code helm template --set set} must fail on the values schema with a message naming {@code named}. */
  public void assertSchemaRejects(String set, String named) {
    Result result = template("", "--set", set);
    if (result.ok()) {
      throw new AssertionError("helm template --set " + set + " succeeded");
    }
    if (!result.stderr().contains("schema")) {
      throw new AssertionError("not refused by the schema: " + result.describe());
    }
    if (!result.stderr().contains(named)) {
      throw new AssertionError("the message does not name " + named + ": " + result.describe());
    }
  }

  /** Renders the chart with {@code --set ...} style arguments only. */
  public Rendered render(String... args) {
    return renderValues("", args);
  }

  /** The objects of a {@code helm template} output. */
  public record Rendered(List<HasMetadata> objects) {
    static Rendered parse(String multiDocumentYaml) {
      List<HasMetadata> objects = new ArrayList<>();
      for (String document : DOCUMENT_SEPARATOR.split(multiDocumentYaml)) {
        boolean empty = document.lines()
            .map(String::trim)
            .allMatch(line -> line.isEmpty() || line.startsWith("#"));
        if (!empty) {
          objects.add(SERIALIZATION.unmarshal(document, HasMetadata.class));
        }
      }
      return new Rendered(List.copyOf(objects));
    }

    public <T extends HasMetadata> List<T> all(Class<T> type) {
      return objects.stream().filter(type::isInstance).map(type::cast).toList();
    }

    public List<HasMetadata> ofKind(String kind) {
      return objects.stream().filter(o -> kind.equals(o.getKind())).toList();
    }

    public <T extends HasMetadata> Optional<T> find(Class<T> type) {
      List<T> found = all(type);
      if (found.size() > 1) {
        throw new AssertionError("more than one " + type.getSimpleName() + ": " + found);
      }
      return found.stream().findFirst();
    }

    public <T extends HasMetadata> T one(Class<T> type) {
      return find(type).orElseThrow(() ->
          new AssertionError("no " + type.getSimpleName() + " in the rendered chart; kinds: " + kinds()));
    }

    public List<String> kinds() {
      return objects.stream().map(o -> o.getKind() + "/" + o.getMetadata().getName()).toList();
    }
  }

  private Result run(List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(binary);
    command.addAll(args);
    return ProcessRunner.run(command, Map.of(), DEADLINE);
  }

  private static String locate() {
    return LocalTool.locate("helm", "HELM");
  }
}
