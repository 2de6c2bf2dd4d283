package dev.syncgc.core.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** SPEC "In use": {@code syncgc.dev/users-from} is namespace names, comma-separated, or {@code *}. */
class UsersFromReadTest {

  @Test
  void namespaceNamesOrAStar() {
    assertEquals(new UsersFrom(false, Set.of("team-a", "b2")), Setting.USERS_FROM.read(" team-a, b2,").value().get());
    assertEquals(new UsersFrom(true, Set.of()), Setting.USERS_FROM.read("*").value().get());
    assertEquals(UsersFrom.NONE, Setting.USERS_FROM.read("").value().get(), "empty: no namespace");
    assertNull(Setting.USERS_FROM.read("team-a").problem());
  }

  @Test
  void anythingElseIsInvalidAndSaysWhy() {
    assertTrue(Setting.USERS_FROM.read("Team-A").problem().contains("\"Team-A\" is no namespace name"));
    assertTrue(Setting.USERS_FROM.read("team-a/x").problem().contains("no namespace name"));
    assertTrue(Setting.USERS_FROM.read("*, team-a").problem().contains("* stands alone"));
    assertTrue(Setting.USERS_FROM.read("a".repeat(64)).problem().contains("no namespace name"));
    assertTrue(Setting.USERS_FROM.read("a,".repeat(10_000)).problem().contains("over 16 KiB"));
  }

  @Test
  void invalidKeepsTheLastValidAllowance() {
    var x = dev.syncgc.core.TestObjects.obj("x").clusterScoped().syncFinalizer()
        .annotate(dev.syncgc.core.model.Names.USERS_FROM, "team-a;team-b")
        .annotate(dev.syncgc.core.model.Names.LAST_VALID_USERS_FROM, "team-a").build();
    assertEquals(new UsersFrom(false, Set.of("team-a")), SettingsInForce.ofAnnotations(x).usersFrom());
  }
}
