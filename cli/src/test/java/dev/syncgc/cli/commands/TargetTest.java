package dev.syncgc.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.ExitCodes;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The object named as kubectl accepts it. */
class TargetTest {
  @Test
  void kindNameAndKindSlashNameAreTheSameObject() {
    assertEquals("widget/my-app", Target.of(List.of("widget", "my-app")));
    assertEquals("widget/my-app", Target.of(List.of("widget/my-app")));
    assertEquals("widgets.test.syncgc.dev/my-app", Target.of(List.of("widgets.test.syncgc.dev", "my-app")));
  }

  @Test
  void mixingTheFormsOrNamingMoreIsAUsageError() {
    for (List<String> words : List.of(List.of("widget/a", "b"), List.of("widget", "a/b"), List.of("widget", "a", "b"),
        List.<String>of())) {
      CliException e = assertThrows(CliException.class, () -> Target.of(words), words.toString());
      assertEquals(ExitCodes.USAGE, e.exitCode());
    }
  }
}
