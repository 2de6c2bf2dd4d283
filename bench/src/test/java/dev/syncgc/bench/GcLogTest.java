package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class GcLogTest {
  @Test
  void peakIsTheLargestBeforeAndAfterOfTheWindow() {
    String log = """
        [0.012s] Using G1
        [1.501s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 24M->5M(256M) 3.120ms
        [9.877s] GC(1) Pause Young (Normal) (G1 Evacuation Pause) 151M->40M(256M) 8.004ms
        [12.100s] GC(2) Pause Full (System.gc()) 60M->21M(80M) 40.2ms
        [13.000s] GC(3) Pause Remark 512K->512K(80M) 0.9ms
        """;
    GcLog.Peak p = GcLog.parse(log);
    assertEquals(4, p.collections());
    assertEquals(151 * 1024 * 1024, p.beforeBytes());
    assertEquals(40 * 1024 * 1024, p.afterBytes());
  }

  @Test
  void aWindowWithoutCollectionsHasNoPeak() {
    GcLog.Peak p = GcLog.parse("[0.012s] Using G1\n");
    assertEquals(0, p.collections());
    assertTrue(Double.isNaN(p.beforeBytes()));
  }
}
