package dev.syncgc.engine;

import static dev.syncgc.core.TestObjects.DELETED_AT;
import static dev.syncgc.core.TestObjects.graphOf;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.graph.DependencyGraph;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class DeletionsInProgressTest {
  private final MutableClock clock = new MutableClock(DELETED_AT);

  @Test
  void noneInProgressIsZero() {
    DeletionsInProgress inProgress = new DeletionsInProgress(new ObjectStates(), graphOf()::get, clock);
    clock.advance(Duration.ofHours(1));
    assertEquals(0, inProgress.count());
    assertEquals(0.0, inProgress.oldestAgeSeconds());
  }

  @Test
  void theAgeIsTheTimeSinceTheEarliestDeletionTimestampAndGrowsWithTheClock() {
    DependencyGraph graph = graphOf(
        obj("old").deletedAt(DELETED_AT).syncFinalizer().build(),
        obj("new").deletedAt(DELETED_AT.plusSeconds(600)).syncFinalizer().build());
    DeletionsInProgress inProgress = new DeletionsInProgress(new ObjectStates(), graph::get, clock);
    inProgress.add("new");
    inProgress.add("old");
    clock.set(DELETED_AT.plus(Duration.ofMinutes(31).plusMillis(250)));

    assertEquals(2, inProgress.count());
    assertEquals(1860.25, inProgress.oldestAgeSeconds());
    clock.advance(Duration.ofSeconds(10));
    assertEquals(1870.25, inProgress.oldestAgeSeconds());
  }

  @Test
  void aStreamOfShortDeletionsStaysYoung() {
    // an owner always in progress, but each one only for a minute: the count never drops to 0
    DependencyGraph graph = graphOf();
    DeletionsInProgress inProgress = new DeletionsInProgress(new ObjectStates(), graph::get, clock);
    for (int i = 0; i < 60; i++) {
      String uid = "owner-" + i;
      graph.upsert(obj(uid).deletedAt(clock.instant()).syncFinalizer().build());
      inProgress.add(uid);
      if (i > 0) {
        inProgress.remove("owner-" + (i - 1));
        graph.remove("owner-" + (i - 1));
      }
      clock.advance(Duration.ofSeconds(59));
      assertEquals(1, inProgress.count());
      assertEquals(59.0, inProgress.oldestAgeSeconds(), "after " + i + " minutes");
      clock.advance(Duration.ofSeconds(1));
    }
  }

  @Test
  void aFinishedOwnerNoLongerCounts() {
    DependencyGraph graph = graphOf(
        obj("old").deletedAt(DELETED_AT).syncFinalizer().build(),
        obj("new").deletedAt(DELETED_AT.plusSeconds(600)).syncFinalizer().build());
    DeletionsInProgress inProgress = new DeletionsInProgress(new ObjectStates(), graph::get, clock);
    inProgress.add("old");
    inProgress.add("new");
    clock.set(DELETED_AT.plusSeconds(3600));

    inProgress.remove("old");
    assertEquals(3000.0, inProgress.oldestAgeSeconds());
    inProgress.remove("new");
    assertEquals(0.0, inProgress.oldestAgeSeconds());
  }

  @Test
  void anOwnerGoneFromTheGraphOrNotBeingDeletedIsSkipped() {
    DependencyGraph graph = graphOf(
        obj("alive").syncFinalizer().build(),
        obj("deleting").deletedAt(DELETED_AT.plusSeconds(100)).syncFinalizer().build());
    DeletionsInProgress inProgress = new DeletionsInProgress(new ObjectStates(), graph::get, clock);
    inProgress.add("gone");
    inProgress.add("alive");
    inProgress.add("deleting");
    clock.set(DELETED_AT.plusSeconds(160));

    assertEquals(60.0, inProgress.oldestAgeSeconds());
  }

  @Test
  void aDeletionTimestampAheadOfTheClockIsZero() {
    // a Pod's deletionTimestamp is the end of its grace period; or the API server's clock runs ahead
    DependencyGraph graph = graphOf(obj("pod").deletedAt(DELETED_AT.plusSeconds(30)).gracePeriod(30)
        .syncFinalizer().build());
    DeletionsInProgress inProgress = new DeletionsInProgress(new ObjectStates(), graph::get, clock);
    inProgress.add("pod");

    assertEquals(0.0, inProgress.oldestAgeSeconds());
    clock.advance(Duration.ofSeconds(45));
    assertEquals(15.0, inProgress.oldestAgeSeconds());
  }

  private static final class MutableClock extends Clock {
    private Instant now;

    MutableClock(Instant now) {
      this.now = now;
    }

    void set(Instant instant) {
      now = instant;
    }

    void advance(Duration d) {
      now = now.plus(d);
    }

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
