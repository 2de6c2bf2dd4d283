package dev.syncgc.cli;

import dev.syncgc.cli.commands.Complete;
import dev.syncgc.cli.commands.CompletionCommand;
import dev.syncgc.cli.commands.DeleteCommand;
import dev.syncgc.cli.commands.PreviewCommand;
import dev.syncgc.cli.commands.ReleaseCommand;
import dev.syncgc.cli.commands.StatusCommand;
import dev.syncgc.cli.commands.TreeCommand;
import dev.syncgc.cli.commands.WhyCommand;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kubectl syncgc}: the ownership tree, why an object is stuck, a dry run of a deletion, the operator's state. */
@Command(name = "kubectl syncgc", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
    description = "See what syncgc sees: the ownership tree, why an object is stuck, what a deletion would take"
        + " with it, and the operator's state.",
    footer = {"", ExitCodes.HELP},
    subcommands = {TreeCommand.class, WhyCommand.class, PreviewCommand.class, StatusCommand.class,
        DeleteCommand.class, ReleaseCommand.class, CompletionCommand.class})
public final class Main implements Runnable {

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command line; returns the exit code (see {@link ExitCodes}). */
  public static int run(String... args) {
    CommandLine line = new CommandLine(new Main());
    if (args.length > 0 && args[0].equals(Complete.NAME)) { // kubectl_complete-syncgc: the words as typed, flags too
      return Complete.run(line.getCommandSpec(), List.of(args).subList(1, args.length));
    }
    line.setExitCodeExceptionMapper(e -> e instanceof CliException c ? c.exitCode() : ExitCodes.ERROR);
    line.setParameterExceptionHandler((e, a) -> {
      e.getCommandLine().getErr().println("error: " + e.getMessage());
      e.getCommandLine().getErr().println("(see " + e.getCommandLine().getCommandSpec().qualifiedName() + " --help)");
      return ExitCodes.USAGE;
    });
    line.setExecutionExceptionHandler((e, cmd, parsed) -> {
      if (e instanceof CliException c) {
        cmd.getErr().println("error: " + c.getMessage());
        return c.exitCode();
      }
      cmd.getErr().println("error: " + e);
      return ExitCodes.ERROR;
    });
    return line.execute(args);
  }

  @Override
  public void run() {
    new CommandLine(this).usage(System.out);
  }

  /** The version from the jar's manifest. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"kubectl-syncgc " + (v == null ? "(development build)" : v)};
    }
  }
}
