package dev.syncgc.core.graph;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.link;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class DependencyGraphTest {

  private static Set<String> dependents(DependencyGraph g, String uid) {
    return g.dependentsOf(uid).stream().map(ObjectMetadata::uid).collect(Collectors.toSet());
  }

  @Test
  void anOwnersNameIsOneInstanceWhicheverArrivesFirstAndItsUuidNoStringAtAll() {
    String o = "0f8b3c9e-1d2a-4b5c-8d6e-7f8091a2b3c4";
    for (boolean ownerFirst : new boolean[] {true, false}) {
      DependencyGraph g = TestObjects.graph();
      // each record with its own copies of the strings, as two deserialized objects have
      ObjectMetadata owner = obj(new String(o)).build();
      ObjectMetadata d1 = obj("d1").ownedBy(new OwnerLink(new String(o), "example.com/v1", "Widget", new String(o))).build();
      ObjectMetadata d2 = obj("d2").ownedBy(new OwnerLink(new String(o), "example.com/v1", "Widget", new String(o))).build();
      if (ownerFirst) {
        g.upsert(owner);
      }
      g.upsert(d1);
      g.upsert(d2);
      if (!ownerFirst) {
        g.upsert(owner);
      }
      assertNull(g.get(o).ref().opaqueUid());
      String name = g.get(o).ref().name();
      for (String d : List.of("d1", "d2")) {
        OwnerLink l = g.get(d).owners().get(0);
        assertEquals(o, l.uid());
        assertNull(l.opaqueUid());
        assertTrue(l.name() == name, "owner first " + ownerFirst + ": " + d + "'s reference shares the name");
        assertEquals(l, g.get(d).owners().get(0));
      }
      assertEquals(Set.of("d1", "d2"), dependents(g, o));
    }
  }

  @Test
  void upsertIndexesDependentUnderEachOwner() {
    DependencyGraph g = graphOf(obj("a").build(), obj("b").build(), obj("d").ownedBy("a", "b").build());

    assertEquals(Set.of("d"), dependents(g, "a"));
    assertEquals(Set.of("d"), dependents(g, "b"));
    assertEquals(Set.of(), dependents(g, "d"));
  }

  @Test
  void upsertReturnsOwnersNamedBeforeAndNow() {
    DependencyGraph g = graphOf(obj("d").rv(1).ownedBy("a").build());

    assertEquals(Set.of("a", "b"), g.upsert(obj("d").rv(2).ownedBy("b").build()));
  }

  @Test
  void removeDropsDependentFromItsOwnersAndReturnsThem() {
    DependencyGraph g = graphOf(obj("a").build(), obj("d").ownedBy("a").build());

    assertEquals(Set.of("a"), g.remove("d"));
    assertEquals(Set.of(), dependents(g, "a"));
    assertNull(g.get("d"));
    assertEquals(1, g.size());
  }

  @Test
  void anObjectSeenDeletedStaysSeenDeletedAndIsNotAddedAgain() {
    DependencyGraph g = graphOf(obj("a").build(), obj("d").ownedBy("a").build());

    assertFalse(g.seenDeleted("d"), "held, not deleted");
    g.remove("d");
    assertTrue(g.seenDeleted("d"));
    g.upsert(obj("d").rv(2).ownedBy("a").build()); // a late LIST result
    assertTrue(g.seenDeleted("d"));
    assertNull(g.get("d"));
    assertFalse(g.seenDeleted("a"));
  }

  @Test
  void removingUnknownUidChangesNothing() {
    DependencyGraph g = graphOf(obj("d").ownedBy("a").build());

    assertEquals(Set.of(), g.remove("nope"));
    assertEquals(Set.of(), g.remove("a"));
    assertEquals(1, g.size());
    assertEquals(1, g.virtualSize());
  }

  @Test
  void unobservedOwnerIsVirtualNode() {
    DependencyGraph g = graphOf(obj("d").ownedBy("a").build());

    assertNull(g.get("a"));
    assertEquals(Set.of("d"), dependents(g, "a"));
    assertEquals(1, g.size());
    assertEquals(1, g.virtualSize());
  }

  @Test
  void virtualNodeIsDroppedOnceNothingPointsAtIt() {
    DependencyGraph g = graphOf(obj("d1").ownedBy("a").build(), obj("d2").ownedBy("a").build());

    g.remove("d1");
    assertEquals(1, g.virtualSize());
    g.remove("d2");
    assertEquals(0, g.virtualSize());
    assertEquals(0, g.size());
  }

  @Test
  void virtualNodeBecomesObservedWhenOwnerAppears() {
    DependencyGraph g = graphOf(obj("d").ownedBy("a").build());

    g.upsert(obj("a").build());

    assertEquals(2, g.size());
    assertEquals(0, g.virtualSize());
    assertEquals(Set.of("d"), dependents(g, "a"));
  }

  @Test
  void removedOwnerStaysVirtualWhileDependentsPointAtIt() {
    DependencyGraph g = graphOf(obj("a").build(), obj("d").ownedBy("a").build());

    g.remove("a");

    assertEquals(1, g.size());
    assertEquals(1, g.virtualSize());
    assertEquals(Set.of("d"), dependents(g, "a"));
  }

  @Test
  void staleUpsertIsIgnored() {
    DependencyGraph g = graphOf(obj("d").rv(5).ownedBy("a").build());

    assertEquals(Set.of(), g.upsert(obj("d").rv(4).ownedBy("b").build()));
    assertEquals(5, g.get("d").resourceVersion());
    assertEquals(Set.of("d"), dependents(g, "a"));
    assertEquals(Set.of(), dependents(g, "b"));
  }

  @Test
  void changingOwnerReferencesMovesDependent() {
    DependencyGraph g = graphOf(obj("d").rv(1).ownedBy("a").build());

    g.upsert(obj("d").rv(2).ownedBy("b").build());

    assertEquals(Set.of(), dependents(g, "a"));
    assertEquals(Set.of("d"), dependents(g, "b"));
    assertEquals(1, g.virtualSize(), "only b is left as a virtual node");
  }

  @Test
  void selfOwnedObjectIsItsOwnDependentAndLeavesNoVirtualNode() {
    DependencyGraph g = graphOf(obj("a").ownedBy("a").build());

    assertEquals(Set.of("a"), dependents(g, "a"));
    g.remove("a");
    assertEquals(0, g.size());
    assertEquals(0, g.virtualSize());
  }

  @Test
  void unknownKindLinkIsInvalid() {
    ObjectMetadata d = obj("d").ownedBy(link("a", Scope.UNKNOWN, true)).build();
    DependencyGraph g = graphOf(obj("a").build(), d);

    assertEquals(LinkValidity.UNKNOWN_KIND, g.validity(d, d.owners().get(0)));
  }

  @Test
  void clusterScopedDependentOfNamespacedOwnerIsInvalid() {
    ObjectMetadata d = obj("d").clusterScoped().ownedBy("a").build();
    DependencyGraph g = graphOf(obj("a").build(), d);

    assertEquals(LinkValidity.CLUSTER_SCOPED_DEPENDENT, g.validity(d, d.owners().get(0)));
  }

  @Test
  void namespacedOwnerObservedInAnotherNamespaceIsInvalid() {
    ObjectMetadata d = obj("d").namespace("one").ownedBy("a").build();
    DependencyGraph g = graphOf(obj("a").namespace("two").build(), d);

    assertEquals(LinkValidity.OWNER_IN_OTHER_NAMESPACE, g.validity(d, d.owners().get(0)));
  }

  @Test
  void validLinks() {
    ObjectMetadata sameNs = obj("d1").ownedBy("a").build();
    ObjectMetadata unobservedOwner = obj("d2").ownedBy("ghost").build();
    ObjectMetadata clusterOwner = obj("d3").ownedBy(link("c", Scope.CLUSTER, true)).build();
    ObjectMetadata clusterOwnsCluster =
        obj("d4").clusterScoped().ownedBy(link("c", Scope.CLUSTER, true)).build();
    DependencyGraph g = graphOf(obj("a").build(), obj("c").clusterScoped().build(),
        sameNs, unobservedOwner, clusterOwner, clusterOwnsCluster);

    for (ObjectMetadata d : new ObjectMetadata[] {sameNs, unobservedOwner, clusterOwner, clusterOwnsCluster}) {
      assertEquals(LinkValidity.VALID, g.validity(d, d.owners().get(0)), d.uid());
    }
  }

  @Test
  void invalidLinksAreNotFollowed() {
    DependencyGraph g = graphOf(
        obj("a").namespace("two").build(),
        obj("unknown").namespace("two").ownedBy(link("a", Scope.UNKNOWN, true)).build(),
        obj("cluster").clusterScoped().ownedBy("a").build(),
        obj("elsewhere").namespace("one").ownedBy("a").build());

    assertEquals(Set.of(), dependents(g, "a"));
    assertFalse(g.hasDependents("a"));
    assertEquals(0, g.transitiveDependentCount("a"));
  }

  @Test
  void hasDependentsFollowsValidLinks() {
    DependencyGraph g = graphOf(obj("a").build(), obj("d").ownedBy("a").build());

    assertTrue(g.hasDependents("a"));
    assertFalse(g.hasDependents("d"));
    assertFalse(g.hasDependents("nope"));
  }

  @Test
  void ownerStates() {
    DependencyGraph g = graphOf(obj("alive").build(), obj("going").deleting().build());

    assertEquals(OwnerState.SOLID, g.ownerState(link("alive")));
    assertEquals(OwnerState.DELETING, g.ownerState(link("going")));
    assertEquals(OwnerState.ABSENT, g.ownerState(link("gone")));
    assertEquals(OwnerState.PRESUMED_SOLID, g.ownerState(link("unwatched", Scope.NAMESPACED, false)));
  }

  @Test
  void kindsAreAskedWhenTheGraphIsQueriedNotWhenTheObjectWasRead() {
    java.util.concurrent.atomic.AtomicBoolean served = new java.util.concurrent.atomic.AtomicBoolean(false);
    KindInfo later = new KindInfo() {
      @Override
      public Scope scope(OwnerLink link) {
        return served.get() ? Scope.NAMESPACED : Scope.UNKNOWN;
      }

      @Override
      public boolean tracked(OwnerLink link) {
        return served.get();
      }
    };
    DependencyGraph g = new DependencyGraph(later);
    g.upsert(obj("a").build());
    g.upsert(obj("d").ownedBy("a").build());
    OwnerLink toA = g.get("d").owners().get(0);
    assertEquals(LinkValidity.UNKNOWN_KIND, g.validity(g.get("d"), toA));
    assertEquals(List.of(), g.dependentsOf("a"));
    assertEquals(OwnerState.PRESUMED_SOLID, g.ownerState(toA));

    served.set(true); // the CRD was created after d was read

    assertEquals(LinkValidity.VALID, g.validity(g.get("d"), toA));
    assertEquals(List.of("d"), g.dependentsOf("a").stream().map(ObjectMetadata::uid).toList());
    assertEquals(OwnerState.SOLID, g.ownerState(toA));
  }

  @Test
  void ownerStateIsAbsentOnceOwnerRemoved() {
    DependencyGraph g = graphOf(obj("a").build(), obj("d").ownedBy("a").build());
    OwnerLink toA = g.get("d").owners().get(0);

    g.remove("a");

    assertEquals(OwnerState.ABSENT, g.ownerState(toA));
  }

  @Test
  void transitiveDependentCountOfChain() {
    DependencyGraph g = graphOf(
        obj("a").build(), obj("b").ownedBy("a").build(),
        obj("c").ownedBy("b").build(), obj("d").ownedBy("c").build());

    assertEquals(3, g.transitiveDependentCount("a"));
    assertEquals(1, g.transitiveDependentCount("c"));
    assertEquals(0, g.transitiveDependentCount("d"));
  }

  @Test
  void transitiveDependentCountCountsDiamondBottomOnce() {
    DependencyGraph g = graphOf(
        obj("top").build(), obj("left").ownedBy("top").build(),
        obj("right").ownedBy("top").build(), obj("bottom").ownedBy("left", "right").build());

    assertEquals(3, g.transitiveDependentCount("top"));
  }

  @Test
  void transitiveDependentCountOfRingExcludesItself() {
    DependencyGraph g = graphOf(
        obj("a").ownedBy("c").build(), obj("b").ownedBy("a").build(), obj("c").ownedBy("b").build(),
        obj("leaf").ownedBy("b").build());

    assertEquals(3, g.transitiveDependentCount("a"));
  }

  @Test
  void objectSeenDeletedNeverComesBackFromALateListResult() {
    DependencyGraph g = TestObjects.graph();
    g.upsert(obj("d").ownedBy("x").rv(5).build());
    g.remove("d");
    assertEquals(Set.of(), g.upsert(obj("d").ownedBy("x").rv(4).build()));
    assertNull(g.get("d"));
    assertEquals(List.of(), g.dependentsOf("x"));
  }

  @Test
  void removeIfTakesOutWhatIsGoneReturnsTheOwnersToLookAtAndKeepsItOut() {
    ObjectMetadata owner = obj("owner").build();
    ObjectMetadata ghost = obj("ghost").ownedBy("owner", "other-owner").build();
    ObjectMetadata kept = obj("kept").ownedBy("owner").build();
    DependencyGraph g = graphOf(owner, ghost, kept);

    Removal removal = g.removeIf(o -> o.uid().equals("ghost"));

    assertEquals(List.of("ghost"), removal.uids());
    assertEquals(Set.of("owner", "other-owner"), removal.owners(), "the owners it named may wait for it");
    assertNull(g.get("ghost"));
    assertEquals(Set.of("kept"), dependents(g, "owner"));
    assertEquals(2, g.size());
    assertEquals(0, g.virtualSize(), "the owner only the ghost named is gone too");
    g.upsert(ghost);
    assertNull(g.get("ghost"), "a late copy of an object known gone is not taken back");
    assertEquals(new Removal(List.of(), Set.of()), g.removeIf(o -> false));
  }

  /**
   * A kind no longer served is forgotten, not marked deleted; served again (an
   * aggregated API registered anew), its list brings its objects back. They used to be tombstoned, so
   * the relist was ignored and an object of the kind under deletion stayed Terminating until a restart.
   */
  @Test
  void forgetIfTakesOutWithoutMarkingDeletedSoAReturningKindIsTakenBack() {
    ObjectMetadata owner = obj("owner").build();
    ObjectMetadata sample = obj("sample").ownedBy("owner").build();
    DependencyGraph g = graphOf(owner, sample);

    Removal removal = g.forgetIf(o -> o.uid().equals("sample"));

    assertEquals(List.of("sample"), removal.uids());
    assertEquals(Set.of("owner"), removal.owners());
    assertNull(g.get("sample"));
    assertEquals(Set.of(), dependents(g, "owner"));
    assertEquals(false, g.seenDeleted("sample"));
    g.upsert(sample); // the kind is served again and listed
    assertEquals(sample, g.get("sample"), "the returning kind's object is taken back");
    assertEquals(Set.of("sample"), dependents(g, "owner"));
  }
}
