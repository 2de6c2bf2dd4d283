package dev.syncgc.kube.reflector;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Events are cut out whole however the stream's bytes are split (a chunk may end anywhere, even mid-character). */
class EventFramerTest {
  private static final String STREAM = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"caf\u00e9 {\\\"}\"}}}\n"
      + "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"7\"}}}\n{\"type\":\"X\",\"object\":[]}\n";

  @Test
  void everySplitOfTheStreamGivesTheSameEvents() throws Exception {
    byte[] bytes = STREAM.getBytes(StandardCharsets.UTF_8);
    List<String> expected = List.of(STREAM.split("\n"));
    for (int chunk = 1; chunk <= bytes.length; chunk++) {
      List<String> events = new ArrayList<>();
      EventFramer framer = new EventFramer((b, off, len) -> events.add(new String(b, off, len, StandardCharsets.UTF_8)));
      for (int i = 0; i < bytes.length; i += chunk) {
        framer.feed(ByteBuffer.wrap(bytes, i, Math.min(chunk, bytes.length - i)));
      }
      assertEquals(expected, events, "chunks of " + chunk + " bytes");
    }
  }
}
