package dev.syncgc.kube.reflector;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Cuts a watch stream into its events as the bytes arrive, on whatever thread hands them over: Jackson's
 * non-blocking parser finds where each top-level JSON value ends, without waiting for more input, so a
 * watch holds no thread of its own. Each whole event's bytes go to {@link Sink#event}.
 */
final class EventFramer {
  /** Field names are not pooled: managedFields spell uids and values as keys. */
  private static final JsonFactory JSON = JsonFactory.builder()
      .disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES).build();

  interface Sink {
    void event(byte[] buffer, int offset, int length);
  }

  private final JsonParser parser;
  private final ByteArrayFeeder feeder;
  private final Sink sink;
  /** The bytes not yet handed over; {@code held[0]} is the stream's byte number {@code heldFrom}. */
  private byte[] held = new byte[8192];
  private int heldLength;
  private long heldFrom;
  private long eventStart;
  private int depth;

  EventFramer(Sink sink) {
    this.sink = sink;
    try {
      this.parser = JSON.createNonBlockingByteArrayParser();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    this.feeder = (ByteArrayFeeder) parser.getNonBlockingInputFeeder();
  }

  /** Takes the next bytes of the stream; hands over every event they complete. */
  void feed(ByteBuffer bytes) throws IOException {
    int n = bytes.remaining();
    if (heldLength + n > held.length) {
      held = Arrays.copyOf(held, Math.max(held.length * 2, heldLength + n));
    }
    bytes.get(held, heldLength, n);
    feeder.feedInput(held, heldLength, heldLength + n);
    heldLength += n;
    long handedOver = heldFrom;
    JsonToken token;
    while ((token = parser.nextToken()) != JsonToken.NOT_AVAILABLE && token != null) {
      if (token.isStructStart()) {
        if (depth++ == 0) {
          eventStart = parser.currentLocation().getByteOffset() - 1; // just past the '{' read
        }
      } else if (token.isStructEnd() && --depth == 0) {
        long end = parser.currentLocation().getByteOffset();
        sink.event(held, (int) (eventStart - heldFrom), (int) (end - eventStart));
        handedOver = end;
      }
    }
    drop(handedOver); // only now: the parser reads the array it was fed until it needs more input
  }

  /** Forgets the bytes before stream byte {@code upTo}: they were handed over. */
  private void drop(long upTo) {
    int cut = (int) (upTo - heldFrom);
    System.arraycopy(held, cut, held, 0, heldLength - cut);
    heldLength -= cut;
    heldFrom = upTo;
  }
}
