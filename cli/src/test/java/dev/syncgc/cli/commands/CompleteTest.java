package dev.syncgc.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.cli.Main;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** kubectl's plugin completion protocol: the words after "kubectl syncgc", the last one being completed. */
class CompleteTest {
  private static final CommandSpec ROOT = new CommandLine(new Main()).getCommandSpec();
  private final List<String> asked = new ArrayList<>();

  private final Complete.Source cluster = new Complete.Source() {
    @Override
    public List<String> kinds() {
      return List.of("widgets", "configmaps", "nodes");
    }

    @Override
    public List<String> names(String kind, String namespace) {
      asked.add(kind + " in " + namespace);
      return List.of("root", "other");
    }

    @Override
    public List<String> namespaces() {
      return List.of("default", "team-a");
    }

    @Override
    public List<String> contexts() {
      return List.of("dev", "prod");
    }
  };

  private Complete.Result complete(String... words) {
    return Complete.complete(ROOT, List.of(words), cluster);
  }

  @Test
  void subcommandsThenFlagsThenTheirFixedValues() {
    assertEquals(new Complete.Result(List.of("completion", "delete", "preview", "release", "status", "tree", "why"),
        Complete.NO_FILES), complete(""));
    assertEquals(List.of("status"), complete("st").candidates());
    assertEquals(List.of("--watch"), complete("why", "--wat").candidates());
    assertEquals(List.of("--all-namespaces"), complete("status", "--all").candidates());
    assertEquals(List.of("json"), complete("tree", "-o", "j").candidates());
    assertEquals(List.of("foreground"), complete("delete", "--cascade", "f").candidates());
    assertEquals(List.of("bash", "zsh"), complete("completion", "").candidates());
    assertEquals(Complete.FILES, complete("tree", "--kubeconfig", "").directive());
    assertEquals(Complete.FILES, complete("why", "--certificate-authority", "").directive());
  }

  @Test
  void kindsNamesNamespacesAndContextsFromTheCluster() {
    assertEquals(List.of("widgets"), complete("tree", "wi").candidates());
    assertEquals(List.of("widget/other", "widget/root"), complete("why", "-n", "team-a", "widget/").candidates());
    assertEquals(List.of("root"), complete("preview", "widget", "r").candidates());
    assertEquals(List.of("widget in team-a", "widget in null"), asked, "in the namespace of -n, else the context's");
    assertEquals(List.of(), complete("preview", "widget", "root", "").candidates(), "KIND NAME is complete");
    assertEquals(List.of("team-a"), complete("status", "--namespace", "t").candidates());
    assertEquals(List.of("prod"), complete("tree", "--context", "p").candidates());
    assertEquals(List.of("root"), complete("delete", "--cascade", "orphan", "widget", "ro").candidates(),
        "a flag's value is not taken for the kind");
  }
}
