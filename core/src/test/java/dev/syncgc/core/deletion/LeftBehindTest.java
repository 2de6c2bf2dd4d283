package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.link;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.Scope;
import org.junit.jupiter.api.Test;

/** What a Release deadline left behind is deleted only as the built-in collector would: every owner gone. */
class LeftBehindTest {
  private static String keeper(DependencyGraph g, String uid) {
    return LeftBehind.keeper(g, g.get(uid));
  }

  @Test
  void markedAndEveryOwnerGoneItMayGo() {
    DependencyGraph g = graphOf(obj("d").ownedBy("x").annotate(Names.LEFT_BEHIND_BY, "x").build());
    assertNull(keeper(g, "d"));
  }

  @Test
  void anObjectKeptSinceItWasLeftBehindStays() {
    DependencyGraph g = graphOf(obj("d").ownedBy("x").annotate(Names.LEFT_BEHIND_BY, "x").annotate(Names.KEEP, "true")
        .build());
    assertNotNull(keeper(g, "d"), "SPEC \"Keep one dependent\": syncgc never deletes it through its owner");
  }

  @Test
  void anOwnerThatExistsOrCannotBeSeenKeepsIt() {
    DependencyGraph g = graphOf(obj("x").build(), obj("gone-owner-of-a").build(),
        obj("a").ownedBy("x").annotate(Names.LEFT_BEHIND_BY, "old").build(),
        obj("b").ownedBy("old").ownedBy(link("unwatched", Scope.NAMESPACED, false))
            .annotate(Names.LEFT_BEHIND_BY, "old").build(),
        obj("c").ownedBy("old").ownedBy(link("other", Scope.UNKNOWN, true)).annotate(Names.LEFT_BEHIND_BY, "old")
            .build());
    assertNotNull(keeper(g, "a"), "an owner that exists");
    assertNotNull(keeper(g, "b"), "an owner of a kind syncgc does not watch");
    assertNotNull(keeper(g, "c"), "an owner reference that is not valid");
  }

  @Test
  void notMarkedOrWithoutOwnersOrAlreadyGoingItIsNotSyncgcs() {
    DependencyGraph g = graphOf(obj("plain").ownedBy("x").build(),
        obj("ownerless").annotate(Names.LEFT_BEHIND_BY, "x").build(),
        obj("going").ownedBy("x").deleting().finalizers("example.com/hold").annotate(Names.LEFT_BEHIND_BY, "x")
            .build());
    assertNotNull(keeper(g, "plain"));
    assertNotNull(keeper(g, "ownerless"));
    assertNotNull(keeper(g, "going"));
  }

  @Test
  void aUserKeepsItUnlessItsDeleteOnlyMarksIt() {
    DependencyGraph g = graphOf(obj("d").ownedBy("x").annotate(Names.LEFT_BEHIND_BY, "x").build(),
        obj("opted").ownedBy("x").syncFinalizer().annotate(Names.LEFT_BEHIND_BY, "x").build(),
        obj("app").annotate(Names.USES, "widget/d, widget/opted").build());
    assertNotNull(keeper(g, "d"), "in use, and its DELETE would remove it");
    assertNull(keeper(g, "opted"), "its DELETE only marks it: the hold keeps it until the user is gone");
  }
}
