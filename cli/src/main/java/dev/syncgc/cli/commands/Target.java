package dev.syncgc.cli.commands;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import java.util.List;

/** The object a command is about, as kubectl takes it: {@code KIND/NAME} or {@code KIND NAME}. */
final class Target {
  static final String LABEL = "KIND/NAME | KIND NAME";

  private Target() {}

  /** The words given, as {@code KIND/NAME}. */
  static String of(List<String> words) {
    if (words == null || words.isEmpty() || words.size() > 2) {
      throw new CliException(ExitCodes.USAGE, "expected KIND/NAME or KIND NAME (e.g. widget/my-app or widget my-app),"
          + " got " + (words == null || words.isEmpty() ? "nothing" : "\"" + String.join(" ", words) + "\""));
    }
    if (words.size() == 1) {
      return words.get(0);
    }
    if (words.get(0).contains("/") || words.get(1).contains("/")) {
      // kubectl's answer to "kubectl get widget/a b" and "kubectl get widget a/b"
      throw new CliException(ExitCodes.USAGE, "there is no need to specify a resource type as a separate argument"
          + " when passing arguments in resource/name form (e.g. widget/my-app or widget my-app)");
    }
    return words.get(0) + "/" + words.get(1);
  }
}
