package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** When a request refused with 429 is sent again. */
class TooManyRequestsTest {

  @Test
  void theServersRetryAfterIsHonoured() {
    assertEquals(Duration.ofSeconds(1), TooManyRequests.waitBefore(1, "1", Duration.ZERO));
    assertEquals(Duration.ofSeconds(7), TooManyRequests.waitBefore(3, " 7 ", Duration.ofSeconds(2)));
    assertEquals(Duration.ZERO, TooManyRequests.waitBefore(1, "0", Duration.ZERO));
  }

  @Test
  void withoutAUsableHeaderTheWaitDoublesFrom250ms() {
    assertEquals(Duration.ofMillis(250), TooManyRequests.waitBefore(1, null, Duration.ZERO));
    assertEquals(Duration.ofMillis(500), TooManyRequests.waitBefore(2, "soon", Duration.ZERO));
    assertEquals(Duration.ofMillis(1000), TooManyRequests.waitBefore(3, "-4", Duration.ZERO));
    assertEquals(Duration.ofMillis(250), TooManyRequests.waitBefore(1, "Wed, 21 Oct 2015 07:28:00 GMT", Duration.ZERO));
  }

  @Test
  void aHugeRetryAfterIsCappedAtOneWaitsMaximum() {
    assertEquals(TooManyRequests.MAX_WAIT, TooManyRequests.waitBefore(1, "3600", Duration.ZERO));
    assertEquals(Duration.ofMillis(250), TooManyRequests.waitBefore(1, "99999999999999999999", Duration.ZERO),
        "beyond a long: not a usable header, so the fallback");
  }

  @Test
  void afterTenRetriesTheAnswerGoesBackToTheCaller() {
    assertNotNull(TooManyRequests.waitBefore(TooManyRequests.MAX_RETRIES, "1", Duration.ZERO));
    assertNull(TooManyRequests.waitBefore(TooManyRequests.MAX_RETRIES + 1, "1", Duration.ZERO));
    assertNull(TooManyRequests.waitBefore(0, "1", Duration.ZERO));
  }

  @Test
  void aRequestNeverWaitsMoreThanAMinuteInAll() {
    assertNotNull(TooManyRequests.waitBefore(2, "30", Duration.ofSeconds(30)));
    assertNull(TooManyRequests.waitBefore(3, "30", Duration.ofSeconds(60)));
    assertNull(TooManyRequests.waitBefore(2, "5", Duration.ofSeconds(56)));
  }

  /** Whatever the server says, the waits of one request are bounded and never negative. */
  @Property
  void waitsAreBoundedWhateverTheHeaders(@ForAll("headers") List<String> headers) {
    Duration waited = Duration.ZERO;
    int retry = 1;
    for (String header : headers) {
      Duration wait = TooManyRequests.waitBefore(retry, header, waited);
      if (wait == null) {
        break;
      }
      assertTrue(!wait.isNegative() && wait.compareTo(TooManyRequests.MAX_WAIT) <= 0, "wait " + wait);
      waited = waited.plus(wait);
      retry++;
    }
    assertTrue(waited.compareTo(TooManyRequests.MAX_TOTAL_WAIT) <= 0, "waited " + waited);
    assertTrue(retry - 1 <= TooManyRequests.MAX_RETRIES);
  }

  @Provide
  Arbitrary<List<String>> headers() {
    Arbitrary<String> numbers = Arbitraries.longs().between(-5, 100_000).map(n -> Long.toString(n));
    Arbitrary<String> header = Arbitraries.oneOf(numbers, Arbitraries.strings().ofMaxLength(5),
        Arbitraries.just((String) null));
    return header.list().ofMaxSize(20);
  }

  /** Without a header, the wait never shrinks from one retry to the next. */
  @Property
  void fallbackWaitsNeverShrink(@ForAll @IntRange(min = 1, max = 9) int retry) {
    Duration a = TooManyRequests.waitBefore(retry, null, Duration.ZERO);
    Duration b = TooManyRequests.waitBefore(retry + 1, null, Duration.ZERO);
    assertTrue(b.compareTo(a) >= 0, a + " then " + b);
  }

  @Property
  void secondsAreParsedAsSeconds(@ForAll @LongRange(min = 0, max = 30) long seconds) {
    assertEquals(Duration.ofSeconds(seconds), TooManyRequests.parseSeconds(Long.toString(seconds)));
  }
}
