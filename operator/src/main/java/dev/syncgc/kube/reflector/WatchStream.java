package dev.syncgc.kube.reflector;

import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.reflector.MetadataDecoder.Event;
import io.fabric8.kubernetes.client.http.AsyncBody;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The bytes of one watch request as they arrive: framed, decoded and handed over event by event; the
 * next bytes are asked for only once they are, until the handler cuts the stream short or its reader stops.
 */
final class WatchStream implements AsyncBody.Consumer<List<ByteBuffer>> {
  /** Why a watch was cut short by what it read. */
  enum Cut { NONE, GONE, REJECTED }

  private final EventFramer framer;
  private final BooleanSupplier stopped;
  private volatile Cut cut = Cut.NONE;
  private volatile long lastReceived = System.nanoTime();
  private volatile boolean silenced;

  WatchStream(TrackedKind kind, Function<Event, Cut> handler, BooleanSupplier stopped) {
    this.stopped = stopped;
    this.framer = new EventFramer((buffer, offset, length) -> {
      if (!stopped.getAsBoolean() && cut == Cut.NONE) {
        cut = handler.apply(MetadataDecoder.event(kind, buffer, offset, length));
      }
    });
  }

  @Override
  public void consume(List<ByteBuffer> buffers, AsyncBody body) throws Exception {
    lastReceived = System.nanoTime();
    for (ByteBuffer buffer : buffers) {
      framer.feed(buffer);
    }
    if (cut != Cut.NONE || stopped.getAsBoolean()) {
      body.cancel();
    } else {
      body.consume();
    }
  }

  Cut cut() {
    return cut;
  }

  /** {@link System#nanoTime()} when bytes last arrived (or the stream began). */
  long lastReceived() {
    return lastReceived;
  }

  /** Marks the stream as ended for its silence; true the first time. */
  synchronized boolean silence() {
    if (silenced) {
      return false;
    }
    silenced = true;
    return true;
  }

  boolean silenced() {
    return silenced;
  }
}
