package dev.syncgc.cli.commands;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "completion", mixinStandardHelpOptions = true,
    description = {"A completion script for bash or zsh, for the plugin run as kubectl-syncgc: subcommands, flags"
        + " and their fixed values.",
        "Under kubectl (kubectl syncgc <TAB>, kubectl 1.26+) completion comes from kubectl_complete-syncgc on PATH"
            + " instead, which also completes kinds, names and namespaces from the cluster."},
    footer = {"", "  source <(kubectl syncgc completion bash)   # in ~/.bashrc",
        "  source <(kubectl syncgc completion zsh)    # in ~/.zshrc"})
public final class CompletionCommand implements Callable<Integer> {
  @Parameters(paramLabel = "bash|zsh", description = "The shell.")
  String shell;

  @Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    String s = shell.toLowerCase(Locale.ROOT);
    if (!s.equals("bash") && !s.equals("zsh")) {
      throw new CliException(ExitCodes.USAGE, "no completion for \"" + shell + "\" (use bash or zsh)");
    }
    // picocli's script serves both: in zsh it loads bashcompinit itself
    CommandLine root = new CommandLine(spec.root().userObject());
    System.out.print(AutoComplete.bash("kubectl-syncgc", root));
    return ExitCodes.OK;
  }
}
