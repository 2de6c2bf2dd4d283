package dev.syncgc.cli.commands;

import static dev.syncgc.core.TestObjects.DELETED_AT;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.cli.cluster.Kinds;
import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.kube.TrackedKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code why} on objects in use and on their users (SPEC "In use"). */
class WhyTest {
  private static final Kinds KINDS = new Kinds(List.of(
      new Kinds.Served(new TrackedKind("example.com", "v1", "Widget", "widgets", true), List.of(), true),
      new Kinds.Served(new TrackedKind("", "v1", "ConfigMap", "configmaps", true), List.of("cm"), true)));
  private static final Instant NOW = DELETED_AT.plusSeconds(90);
  private final List<ObjectMetadata> all = new ArrayList<>();

  private ObjectMetadata put(ObjectMetadata o) {
    all.add(o);
    return o;
  }

  private Why why(ObjectMetadata target) {
    return Why.of(Snapshot.of(KINDS, target, all), NOW);
  }

  @Test
  void anObjectHeldInUseSaysSoNamesItsUsersAndHasNoDeadlineAndItsUserSaysWhatItHoldsUp() {
    ObjectMetadata db = put(obj("db").annotate(Names.PROPAGATION, "Synchronous").syncFinalizer().deleting().build());
    put(obj("cache").ownedBy("db").build());
    ObjectMetadata reader = put(obj("reader").kind("v1", "ConfigMap").uses("widget/db, nosuchkind/settings, configmap/later")
        .build());

    Why held = why(db);

    assertEquals(List.of(
        "Widget/default/db is marked as deleted, for 90s (deletionTimestamp 2024-01-01T00:00:00Z).",
        "Held by:",
        "  syncgc.dev/GarbageCollectionInProgress: syncgc",
        "syncgc: Synchronous: Waiting for 1 user before its own deletion starts (syncgc.dev/uses):"
            + " ConfigMap/default/reader",
        "deadline: none while it is in use (an in-use hold has none; its own deadline starts once the last user is"
            + " gone)",
        "Used by (syncgc.dev/uses), each must be gone (or no longer name it) before its own deletion starts:",
        "  ConfigMap/default/reader  alive"), held.lines);
    assertEquals(true, held.model.get("inUse"));
    assertEquals(List.of(Map.of("apiVersion", "v1", "kind", "ConfigMap", "namespace", "default", "name", "reader",
        "uid", "reader", "state", "alive")), held.model.get("usedBy"));

    Why user = why(reader);

    List<String> lines = user.lines;
    int uses = lines.indexOf("Uses (syncgc.dev/uses):");
    assertEquals(List.of(
        "Uses (syncgc.dev/uses):",
        "  Widget/db  marked as deleted; held: it waits for this to be gone (or no longer name it)",
        "  nothing: \"nosuchkind/settings\": the server has no kind \"nosuchkind\" (see kubectl api-resources)",
        "  ConfigMap/later  not there (yet)",
        "What deleting it would do: kubectl syncgc preview configmap/reader -n default"),
        lines.subList(uses, lines.size()), String.join("\n", lines));
  }

  @Test
  void anOwnerNamesTheDependentThatWaitsForItsUsersFirstAndAnAliveObjectSaysWhetherItsUsersWouldHoldIt() {
    ObjectMetadata r = put(obj("r").annotate(Names.PROPAGATION, "Synchronous").syncFinalizer().deleting()
        .deadline(NOW.plusSeconds(600)).build());
    ObjectMetadata x = put(obj("x").ownedBy("r").build());
    put(obj("c").uses("widget/x").build());

    List<String> owner = why(r).lines;
    assertTrue(owner.contains("in use: Widget/default/x waits for its user first (syncgc.dev/uses):"
        + " Widget/default/c (alive)"), String.join("\n", owner));

    List<String> dependent = why(x).lines;
    assertTrue(dependent.contains("Used by (syncgc.dev/uses), which do not hold it: it does not carry syncgc's"
        + " finalizer (only an opted-in object is protected), though a synchronous cascade that would delete it"
        + " waits for them first:"), String.join("\n", dependent));
  }

  @Test
  void usersThatUseEachOtherAllBeingDeletedAreReleasedAsAUnit() {
    ObjectMetadata v = put(obj("v").annotate(Names.PROPAGATION, "Synchronous").syncFinalizer().deleting()
        .uses("widget/w").build());
    put(obj("w").annotate(Names.PROPAGATION, "Synchronous").syncFinalizer().deleting().uses("widget/v").build());

    String syncgc = (String) why(v).model.get("syncgc");

    assertTrue(syncgc.contains("its users use it back, all being deleted: released as a unit with them"
        + " (Widget/default/v -> Widget/default/w -> Widget/default/v, syncgc.dev/uses)"), syncgc);
    assertEquals(false, why(v).model.get("inUse"));
  }
}
