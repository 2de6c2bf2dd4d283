package dev.syncgc.cli.commands;

import static dev.syncgc.core.TestObjects.DELETED_AT;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.cli.cluster.Kinds;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.TrackedKind;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code status}: the in-use holds among the deletions in progress (SPEC "In use"). */
class StatusTest {
  private static final Kinds KINDS = new Kinds(List.of(
      new Kinds.Served(new TrackedKind("example.com", "v1", "Widget", "widgets", true), List.of(), true)));

  @Test
  void countsTheDeletionsThatWaitForTheirUsersAndNamesTheUsersNotARingNorAFreeObject() {
    List<ObjectMetadata> all = List.of(
        obj("db").syncFinalizer().deletedAt(DELETED_AT).build(),
        obj("reader").uses("widget/db").build(),
        obj("free").syncFinalizer().deletedAt(DELETED_AT.plusSeconds(10)).build(),
        obj("v").syncFinalizer().deletedAt(DELETED_AT.plusSeconds(20)).uses("widget/w").build(),
        obj("w").syncFinalizer().deletedAt(DELETED_AT.plusSeconds(30)).uses("widget/v").build(),
        obj("other").namespace("elsewhere").syncFinalizer().deleting().build(),
        obj("user").namespace("elsewhere").uses("widget/other").build());

    List<Map<String, Object>> rows = StatusCommand.rows(Snapshot.of(KINDS, null, all), "default",
        DELETED_AT.plusSeconds(90));

    assertEquals(List.of("db", "free", "v", "w"), rows.stream().map(r -> r.get("name")).toList());
    List<Map<String, Object>> held = rows.stream().filter(r -> !((List<?>) r.get("inUseBy")).isEmpty()).toList();
    assertEquals(List.of(
        "in-use holds in namespace default: 1 (waiting for their users before their own deletion starts, no deadline);"
            + " syncgc_in_use_holds 2 in the whole cluster, oldest first:",
        "  Widget/default/db  for 90s  waits for 1 user: Widget/default/reader (alive)"),
        StatusCommand.inUseLines(held, "default", 2.0));
    assertEquals(List.of("in-use holds: 0"), StatusCommand.inUseLines(List.of(), null, null));
    assertEquals(2, StatusCommand.rows(Snapshot.of(KINDS, null, all), null, DELETED_AT).stream()
        .filter(r -> !((List<?>) r.get("inUseBy")).isEmpty()).count(), "-A: the one elsewhere too");
  }
}
