package dev.syncgc.e2e.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.e2e.soak.Oracle.Before;
import dev.syncgc.e2e.soak.Oracle.Expectation;
import dev.syncgc.e2e.soak.Scenario.Action;
import dev.syncgc.e2e.soak.Scenario.Shape;
import dev.syncgc.e2e.soak.SoakObject.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The soak's model, on graphs small enough to know the answer by heart. */
class OracleTest {
  private final List<SoakObject> universe = new ArrayList<>();

  private SoakObject add(String name, SoakObject... owners) {
    SoakObject o = new SoakObject(Kind.WIDGET, "ns", name);
    o.owners.addAll(List.of(owners));
    universe.add(o);
    return o;
  }

  private Scenario scenario(Shape shape, Action action, SoakObject root) {
    Scenario s = new Scenario("s", shape, action, "ns");
    s.root = root;
    s.objects.addAll(universe);
    return s;
  }

  @Test
  void synchronousDeletionTakesARingKeptOnlyByItselfAndLeavesOneWithASolidOutsideOwner() {
    SoakObject keeper = add("keeper");
    SoakObject r = add("r");
    SoakObject x = add("x", r);
    SoakObject y = add("y", x);
    x.owners.add(y); // x <-> y: a ring under r
    SoakObject p = add("p", r);
    SoakObject q = add("q", p, keeper);
    SoakObject q2 = add("q2", q);
    p.owners.add(q2); // p -> q -> q2 -> p, kept by keeper through q
    Expectation e = new Oracle(universe).expect(scenario(Shape.SYNC_ANNOTATION, Action.DELETE, r));
    assertEquals(Set.of(r, x, y), e.deleted());
    assertEquals(Set.of(q2), e.survivorOwners().get(p), "p loses only its reference to r");
    assertEquals(Set.of(p, keeper), e.survivorOwners().get(q));
    assertTrue(e.order().contains(new Before(x, r, Oracle.GOES_LAST)), e.order().toString());
    assertTrue(e.order().contains(new Before(y, r, Oracle.GOES_LAST)),
        "transitively: " + e.order());
    assertTrue(e.order().stream().noneMatch(b -> Set.of(b.first(), b.then()).equals(Set.of(x, y))),
        "no order inside a ring: it is released as a unit");
  }

  @Test
  void aDependentOfSeveralCascadedOwnersGoesBeforeTheRootButNeedNotBeforeEachOwner() {
    SoakObject r = add("r");
    SoakObject a = add("a", r);
    SoakObject b = add("b", r);
    SoakObject d = add("d", a, b);
    SoakObject leaf = add("leaf", a);
    Expectation e = new Oracle(universe).expect(scenario(Shape.SYNC_ANNOTATION, Action.DELETE, r));
    assertEquals(Set.of(r, a, b, d, leaf), e.deleted());
    assertTrue(e.order().contains(new Before(d, r, Oracle.GOES_LAST)), e.order().toString());
    assertTrue(e.order().contains(new Before(leaf, a, Oracle.SOLE_OWNER)), e.order().toString());
    assertTrue(e.order().stream().noneMatch(o -> o.first() == d && o.then() != r),
        "d may be handed from a to b (SPEC step 2): " + e.order());
  }

  @Test
  void theBuiltInCollectorLeavesRingsAndAnythingWithAnOwnerLeft() {
    SoakObject r = add("r");
    SoakObject a = add("a", r);
    SoakObject b = add("b", a);
    SoakObject x = add("x", r);
    SoakObject y = add("y", x);
    x.owners.add(y);
    SoakObject other = add("other");
    SoakObject shared = add("shared", a, other);
    Expectation e = new Oracle(universe).expect(scenario(Shape.BUILTIN, Action.FOREGROUND, r));
    assertEquals(Set.of(r, a, b), e.deleted());
    assertEquals(Set.of(y), e.survivorOwners().get(x));
    assertEquals(Set.of(other), e.survivorOwners().get(shared));
    assertTrue(e.order().isEmpty(), "the built-in collector promises no order the soak checks");
  }

  @Test
  void orphaningDeletesTheRootAloneAndHigherWavesGoFirst() {
    SoakObject r = add("r");
    SoakObject high = add("high", r);
    high.wave = 2;
    SoakObject low = add("low", r);
    low.wave = -1;
    SoakObject mid = add("mid", r);
    Expectation orphan = new Oracle(universe).expect(scenario(Shape.ORPHAN_ANNOTATION, Action.DELETE, r));
    assertEquals(Set.of(r), orphan.deleted());
    assertEquals(Set.of(), orphan.survivorOwners().get(high));
    Expectation sync = new Oracle(universe).expect(scenario(Shape.SYNC_ANNOTATION, Action.DELETE, r));
    assertTrue(sync.order().contains(new Before(high, mid, "wave 2 before wave 0")), sync.order().toString());
    assertTrue(sync.order().contains(new Before(mid, low, "wave 0 before wave -1")), sync.order().toString());
  }

  @Test
  void generatedRoundsAreTheSameForTheSameSeedAndEveryModelSetIsConsistent() {
    for (long seed = 0; seed < 200; seed++) {
      Generator.Round a = new Generator(new Random(seed), 12).round("t", 1, 4);
      Generator.Round b = new Generator(new Random(seed), 12).round("t", 1, 4);
      assertEquals(a.all().toString(), b.all().toString(), "seed " + seed);
      Oracle oracle = new Oracle(a.all());
      for (Scenario s : a.scenarios()) {
        Expectation e = oracle.expect(s);
        assertTrue(e.deleted().stream().noneMatch(e.survivorOwners()::containsKey), "seed " + seed + " " + s);
        assertTrue(a.keepers().stream().noneMatch(e.deleted()::contains), "keepers never go: seed " + seed);
        for (Before order : e.order()) {
          assertTrue(e.deleted().contains(order.first()) && e.deleted().contains(order.then()), order.toString());
        }
      }
    }
  }
}
