package dev.syncgc.cli.cluster;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.cli.CliException;
import dev.syncgc.cli.commands.Preview;
import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.usage.Use;
import dev.syncgc.kube.TrackedKind;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class KindsTest {
  private static final TrackedKind WIDGET = new TrackedKind("test.syncgc.dev", "v1", "Widget", "widgets", true);
  private static final TrackedKind GADGET = new TrackedKind("test.syncgc.dev", "v1", "Gadget", "gadgets", false);
  private static final TrackedKind EVENT = new TrackedKind("", "v1", "Event", "events", true);
  private final Kinds kinds = new Kinds(List.of(new Kinds.Served(WIDGET, List.of("wd"), true),
      new Kinds.Served(GADGET, List.of(), true), new Kinds.Served(EVENT, List.of("ev"), false)));

  @Test
  void aSnapshotListsTheTrackedKindsAndAUserCanStillNameTheOthers() {
    assertEquals(List.of(WIDGET, GADGET), kinds.tracked());
    assertEquals(EVENT, kinds.named("ev"));
    assertFalse(kinds.tracked(new OwnerLink("u", "v1", "Event", "e")), "an owner of a kind not listed is never absent");
  }

  @Test
  void aNameTwoGroupsServeIsAmbiguousAndTheMessageSaysHowToNameOne() {
    TrackedKind other = new TrackedKind("example.syncgc.dev", "v1", "Widget", "widgets", true);
    Kinds two = new Kinds(List.of(new Kinds.Served(WIDGET, List.of(), true), new Kinds.Served(other, List.of(), true)));

    CliException e = assertThrows(CliException.class, () -> two.named("widget"));
    assertEquals("kind \"widget\" is served by more than one group: widgets.test.syncgc.dev, widgets.example.syncgc.dev;"
        + " name it with its group, e.g. widget.test.syncgc.dev", e.getMessage());
    assertEquals(WIDGET, two.named("widget.test.syncgc.dev"));
  }

  @Test
  void usesAreResolvedAsTheOperatorResolvesThemShortNamesTooAlsoForAKindThatCouldNotBeListed() {
    assertEquals(WIDGET.groupKind(), kinds.resolve("Widgets").kind().groupKind());
    assertEquals(WIDGET, kinds.named("wd"), "an argument is named as kubectl takes it, short names too");
    assertEquals(WIDGET.groupKind(), kinds.resolve("wd").kind().groupKind(),
        "the operator resolves syncgc.dev/uses with kubectl's short names too: wd/x names a Widget there and here");
    KindInfo notListed = kinds.except(List.of(WIDGET));
    assertEquals(WIDGET.groupKind(), notListed.resolve("widget").kind().groupKind(),
        "a kind that could not be listed is still a kind: its objects are only not seen");
    ObjectMetadata user = obj("u").uses("widget/w").build();
    assertEquals(List.of(new Use("test.syncgc.dev", "Widget", "default", "w", null)),
        new DependencyGraph(notListed).uses(user));
  }

  @Test
  void anOwnerOfAKindThatCouldNotBeListedKeepsItsDependentInAPreview() {
    ObjectMetadata root = obj("root").kind(WIDGET.apiVersion(), "Widget").annotate(Names.PROPAGATION, "Synchronous")
        .syncFinalizer().build();
    ObjectMetadata shared = obj("shared").kind(WIDGET.apiVersion(), "Widget")
        .ownedBy(new OwnerLink("root", WIDGET.apiVersion(), "Widget", "root"),
            new OwnerLink("g", GADGET.apiVersion(), "Gadget", "g")).build(); // a Gadget the user may not list

    List<String> listed = deleted(kinds, root, shared);
    List<String> notListed = deleted(kinds.except(List.of(GADGET)), root, shared);

    assertEquals(List.of("shared", "root"), listed, "the Gadget was listed and is not there: gone");
    assertEquals(List.of("root"), notListed, "the Gadget could not be listed: it keeps 'shared'");
  }

  private static List<String> deleted(KindInfo kinds, ObjectMetadata root, ObjectMetadata shared) {
    Preview p = Preview.of(kinds, List.of(root, shared), root, o -> DeletionSettings.fromAnnotations(o.annotations()),
        Instant.parse("2026-01-01T00:00:00Z"));
    assertTrue(p.propagation.isPresent());
    return p.deleted.stream().map(ObjectMetadata::uid).toList();
  }

}
