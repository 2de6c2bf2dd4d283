package dev.syncgc.kube;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.EventReason;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import dev.syncgc.kube.ScriptedApiServer.Received;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Events aggregated as client-go's recorder does: the same Event on the same object (reason, message,
 * type) adds to the count and lastTimestamp of the Event object written first, instead of another object.
 */
class EventRecorderTest {
  private static final ObjectRef CM = new ObjectRef("v1", "ConfigMap", "ns", "cm", "uid-1");
  private static final String EVENTS = "/api/v1/namespaces/ns/events";

  private ScriptedApiServer server;
  private EventRecorder recorder;
  private final AtomicInteger created = new AtomicInteger();

  private void start(Function<Received, Answer> patches) {
    server = new ScriptedApiServer(x -> {
      if (x.getRequestMethod().equals("POST")) {
        return new Answer(201, null, "{\"kind\":\"PartialObjectMetadata\",\"metadata\":{\"name\":\"cm.e"
            + created.incrementAndGet() + "\",\"namespace\":\"ns\"}}");
      }
      return patches.apply(server.received().stream().reduce((a, b) -> b).orElseThrow());
    });
    recorder = new EventRecorder(server.client, RateLimiter.unlimited(), CallCounts.NONE, Clock.systemUTC(),
        Duration.ZERO, "test");
  }

  @AfterEach
  void stop() {
    if (recorder != null) {
      recorder.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private List<Received> requests(int atLeast) {
    await().atMost(Duration.ofSeconds(10)).until(() -> server.received().size() >= atLeast);
    return List.copyOf(server.received());
  }

  @Test
  void aRepeatedEventCountsOnTheFirstEventObject() {
    start(r -> new Answer(200, null, "{}"));
    for (int i = 0; i < 3; i++) {
      recorder.normal(CM, EventReason.WaitingForDependents, "Waiting for 2 dependents");
      requests(i + 1); // one after the other: each repeat finds the object the first wrote
    }
    recorder.normal(CM, EventReason.WaitingForDependents, "Waiting for 1 dependent");

    List<Received> sent = requests(4);
    assertEquals(List.of("POST " + EVENTS, "PATCH " + EVENTS + "/cm.e1", "PATCH " + EVENTS + "/cm.e1",
        "POST " + EVENTS), sent.stream().map(r -> r.method() + " " + r.path()).toList());
    assertTrue(sent.get(0).body().contains("\"count\":1"), sent.get(0).body());
    assertTrue(sent.get(1).body().contains("\"count\":2") && sent.get(1).body().contains("\"lastTimestamp\":"),
        sent.get(1).body());
    assertTrue(sent.get(2).body().contains("\"count\":3"), sent.get(2).body());
    assertTrue(sent.get(3).body().contains("Waiting for 1 dependent"), "another message, another Event");
  }

  /** The API server deletes Events after its --event-ttl (1h): the next repeat writes a new one. */
  @Test
  void anEventGoneSinceIsWrittenAgain() {
    start(r -> new Answer(404, null, "{\"kind\":\"Status\",\"reason\":\"NotFound\",\"code\":404}"));
    recorder.warning(CM, EventReason.InvalidAnnotation, "bad");
    requests(1);
    recorder.warning(CM, EventReason.InvalidAnnotation, "bad");

    List<Received> sent = requests(3);
    assertEquals(List.of("POST " + EVENTS, "PATCH " + EVENTS + "/cm.e1", "POST " + EVENTS),
        sent.stream().map(r -> r.method() + " " + r.path()).toList());
    assertTrue(sent.get(2).body().contains("\"count\":1"), sent.get(2).body());
  }
}
