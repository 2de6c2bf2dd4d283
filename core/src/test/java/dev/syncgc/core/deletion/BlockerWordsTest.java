package dev.syncgc.core.deletion;

import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.graph.DependencyGraph;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The words of the Events that name what an owner waits for ({@code WaitingForDependents},
 * {@code WaitingForUsers}, {@code kubectl syncgc why}): each reason Blockers gives, counted right.
 */
class BlockerWordsTest {

  private static String why(DependencyGraph g, ObjectMetadata d, String failure, List<ObjectMetadata> users) {
    return Blockers.of(g, List.of(d), uid -> failure, o -> users).get(0).why();
  }

  private static List<ObjectMetadata> widgets(int n) {
    return IntStream.range(0, n).mapToObj(i -> obj("u" + i).build()).toList();
  }

  private static String refs(List<ObjectMetadata> objects) {
    return String.join(", ", objects.stream().map(o -> o.ref().toString()).toList());
  }

  @Test
  void aDependentNotYetDeletedIsNamedAsRequestedOrNotDeleted() {
    ObjectMetadata d = obj("d").build();
    DependencyGraph g = graphOf(d);
    assertEquals("deletion requested", why(g, d, null, List.of()));
    assertEquals("refused; not deleted", why(g, d, "refused", List.of()));
  }

  @Test
  void threeUsersAreNamedAndMoreAreCounted() {
    ObjectMetadata d = obj("d").build();
    DependencyGraph g = graphOf(d);
    assertEquals("in use by " + refs(widgets(3)) + " (" + Names.USES + ")", why(g, d, null, widgets(3)));
    assertEquals("in use by " + refs(widgets(3)) + " and 2 more (" + Names.USES + ")", why(g, d, null, widgets(5)));
  }

  @Test
  void aDependentBeingDeletedNamesWhatHoldsIt() {
    ObjectMetadata d = obj("d").deleting().finalizers("example.com/keep").gracePeriod(30).build();
    assertEquals("held by finalizers [example.com/keep]; graceful termination pending (grace period 30s)",
        why(graphOf(d), d, null, List.of()));
  }

  @Test
  void aZeroGracePeriodIsNoTermination() {
    ObjectMetadata d = obj("d").deleting().gracePeriod(0).build();
    assertEquals("being deleted", why(graphOf(d), d, null, List.of()));
  }

  @Test
  void aDependentUnderItsOwnSynchronousDeletionCountsItsDependents() {
    ObjectMetadata d = obj("d").deleting().syncFinalizer().build();
    assertEquals("waiting for 1 dependent of its own", why(graphOf(d, obj("e").ownedBy("d").build()), d, null, List.of()));
    assertEquals("waiting for 2 dependents of its own", why(graphOf(d, obj("e").ownedBy("d").build(),
        obj("f").ownedBy("d").build()), d, null, List.of()));
  }

  @Test
  void aBlockerWithoutAnObjectIsItsReasonAlone() {
    ObjectRef ref = obj("d").build().ref();
    assertEquals(ref + " (deletion requested)", new Blocker(ref, "deletion requested").toString());
    assertEquals("widgets.example.com could not be listed", Blocker.unverified("widgets.example.com could not be listed")
        .toString());
  }

  @Test
  void waitingForUsersCountsThemAndNamesTenAtMost() {
    List<ObjectRef> one = List.of(obj("u").build().ref());
    assertEquals("Waiting for 1 user before its own deletion starts (" + Names.USES + "): " + one.get(0),
        new Step.WaitForUsers(one).message());
    List<ObjectRef> ten = widgets(10).stream().map(ObjectMetadata::ref).toList();
    assertEquals("Waiting for 10 users before its own deletion starts (" + Names.USES + "): " + refs(widgets(10)),
        new Step.WaitForUsers(ten).message());
    List<ObjectRef> eleven = widgets(11).stream().map(ObjectMetadata::ref).toList();
    assertEquals("Waiting for 11 users before its own deletion starts (" + Names.USES + "): " + refs(widgets(10))
        + ", ...", new Step.WaitForUsers(eleven).message());
  }

  @Test
  void waitingForDependentsCountsThemAndNamesTheWaveAndTheDeadline() {
    List<Blocker> one = List.of(new Blocker(obj("d").build().ref(), "deletion requested"));
    assertEquals("Waiting for 1 dependent: " + one.get(0), new Step.Wait(one, 1, Instant.MAX).message(false));
    assertEquals("Waiting for 2 dependents (deletion wave 1 first), past the deadline (" + Names.ON_TIMEOUT
        + ": Keep): " + one.get(0), new Step.Wait(one, 2, Instant.MAX, OptionalInt.of(1))
        .message(true));
  }
}
