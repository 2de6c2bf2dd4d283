package dev.syncgc.kube.reflector;

import dev.syncgc.kube.MetadataDecoder;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.kube.MetadataDecoder.Event;
import io.fabric8.kubernetes.client.http.AsyncBody;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongConsumer;

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

  /**
   * The request's timeout covers the answer's headers, not its streamed body: a connection that a load
   * balancer or NAT dropped without a close would leave the watch waiting for ever. Once nothing (no
   * event, no bookmark) has arrived for {@code limit}, the stream is marked {@link #silenced}, told
   * to {@code onSilence} (how long, in ms) and its body cancelled, once.
   */
  ScheduledFuture<?> cancelWhenSilent(ScheduledExecutorService timer, Duration limit, AsyncBody body,
      LongConsumer onSilence) {
    long period = Math.max(100, limit.toMillis() / 4);
    return timer.scheduleWithFixedDelay(() -> {
      long silentFor = System.nanoTime() - lastReceived;
      if (!stopped.getAsBoolean() && silentFor > limit.toNanos() && silence()) {
        onSilence.accept(TimeUnit.NANOSECONDS.toMillis(silentFor));
        body.cancel();
      }
    }, period, period, TimeUnit.MILLISECONDS);
  }

  private synchronized boolean silence() {
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
