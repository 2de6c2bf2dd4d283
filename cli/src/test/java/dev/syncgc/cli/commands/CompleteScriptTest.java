package dev.syncgc.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.cli.Main;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code cli/bin/kubectl_complete-syncgc}, what kubectl runs on every TAB, answers as the plugin's own
 * completion ({@link Complete}) does on the same words, from its table and kubectl, and starts no JVM:
 * a {@code java} on PATH (and {@code $JAVA}) that counts its starts is never started.
 */
class CompleteScriptTest {
  private static final CommandSpec ROOT = new CommandLine(new Main()).getCommandSpec();
  private static final Path SCRIPT = Path.of("bin", "kubectl_complete-syncgc").toAbsolutePath();

  @TempDir static Path bin;

  /** What the fake kubectl answers, and the same as a {@link Complete.Source}. */
  private static final Complete.Source CLUSTER = new Complete.Source() {
    @Override
    public List<String> kinds() {
      return List.of("configmaps", "deployments", "widgets");
    }

    @Override
    public List<String> names(String kind, String namespace) {
      if (!kind.startsWith("widget")) {
        throw new IllegalArgumentException("no kind " + kind);
      }
      return List.of("app", "api");
    }

    @Override
    public List<String> namespaces() {
      return List.of("default", "shop");
    }

    @Override
    public List<String> contexts() {
      return List.of("dev", "prod");
    }
  };

  @BeforeAll
  static void fakes() throws IOException {
    executable("kubectl", """
        echo "$*" >> "${0%/*}/kubectl.log"
        case " $* " in
          *' api-resources '*) printf 'configmaps\\ndeployments.apps\\nwidgets.example.syncgc.dev\\n' ;;
          *' config get-contexts '*) printf 'dev\\nprod\\n' ;;
          *' get namespaces '*) printf 'namespace/default\\nnamespace/shop\\n' ;;
          *' get widget'*) printf 'widget.example.syncgc.dev/app\\nwidget.example.syncgc.dev/api\\n' ;;
          *) echo "error: the server doesn't have a resource type" >&2; exit 1 ;;
        esac
        """);
    executable("java", "echo started >> \"${0%/*}/java.log\"\nexit 1\n");
  }

  private static void executable(String name, String body) throws IOException {
    Path file = bin.resolve(name);
    Files.writeString(file, "#!/usr/bin/env bash\n" + body);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** The script's answer: its candidates, then the directive. */
  private static Complete.Result script(List<String> words) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    command.addAll(words);
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
    Map<String, String> env = pb.environment();
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    env.put("JAVA", bin.resolve("java").toString());
    env.remove("KUBECTL");
    Process p = pb.start();
    List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "the script ended");
    assertEquals(0, p.exitValue(), words.toString());
    String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    assertTrue(last.matches(":\\d"), words + " ends with the directive: " + lines);
    return new Complete.Result(lines.subList(0, lines.size() - 1), Integer.parseInt(last.substring(1)));
  }

  private static Complete.Result plugin(List<String> words) {
    try {
      return Complete.complete(ROOT, words, CLUSTER);
    } catch (RuntimeException e) {
      return new Complete.Result(List.of(), Complete.ERROR); // as Complete.run answers a failed question
    }
  }

  /** Every subcommand's every flag, value and positional, as the plugin's command line has them. */
  private static List<List<String>> lines() {
    List<List<String>> all = new ArrayList<>(List.of(List.of(""), List.of("t"), List.of("st"), List.of("nope", "")));
    for (String sub : ROOT.subcommands().keySet()) {
      CommandSpec command = ROOT.subcommands().get(sub).getCommandSpec();
      for (String partial : List.of("", "-", "--", "w", "widget/", "widget/a", "nope/", "de")) {
        all.add(List.of(sub, partial));
      }
      all.add(List.of(sub, "widget", ""));
      all.add(List.of(sub, "widget", "a", ""));
      all.add(List.of(sub, "nope", ""));
      all.add(List.of(sub, "-n", "shop", "widget/"));
      all.add(List.of(sub, "--namespace=shop", "widget", ""));
      all.add(List.of(sub, "bash", ""));
      for (OptionSpec o : command.options()) {
        for (String name : o.names()) {
          all.add(List.of(sub, name, ""));
          all.add(List.of(sub, name, "x", ""));
          all.add(List.of(sub, name + "=x", ""));
        }
      }
    }
    return all;
  }

  @Test
  void answersAsThePluginDoesOnEveryFlagAndStartsNoJvm() throws Exception {
    List<String> differ = new ArrayList<>();
    for (List<String> words : lines()) {
      Complete.Result expected = plugin(words);
      Complete.Result actual = script(words);
      if (!expected.equals(actual)) {
        differ.add(words + ": the plugin " + expected + ", the script " + actual);
      }
    }
    assertEquals(List.of(), differ, "cli/bin/kubectl_complete-syncgc's table must match the plugin's command line");
    assertFalse(Files.exists(bin.resolve("java.log")), "the completion started a JVM");
  }

  @Test
  void asksKubectlWithTheConnectionFlagsOfTheLine() throws Exception {
    Files.deleteIfExists(bin.resolve("kubectl.log"));
    assertEquals(List.of("widget/app"), script(List.of("tree", "--context", "prod", "--token=t", "-v", "6",
        "--as", "me", "-n", "shop", "widget/app")).candidates());
    assertEquals(List.of("--context=prod --token=t --as=me --request-timeout=30s get widget -o name --namespace=shop"),
        Files.readAllLines(bin.resolve("kubectl.log")));
  }
}
