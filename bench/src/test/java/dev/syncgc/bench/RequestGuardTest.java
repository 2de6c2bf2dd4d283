package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestGuardTest {
  private static final int KINDS = 30;

  private static Csv run(String wideVerbs, String treeVerbs) {
    Csv csv = new Csv(CompareCommand.HEADER);
    csv.meta.put("syncgc", "0.1.0-SNAPSHOT (abc1234)");
    csv.add(row("wide-2000", "syncgc-unlimited", 25.9, wideVerbs, 6.76));
    csv.add(row("tree-10x3", "syncgc-unlimited", 16.3, treeVerbs, 4.08));
    csv.add(row("wide-2000", "floor-unlimited", 18.3, "delete=2001", Double.NaN));
    csv.add(row("tree-10x3", "floor-unlimited", 10.7, "delete=1111", Double.NaN));
    return csv;
  }

  private static Map<String, Object> row(String workload, String contender, double seconds, String verbs, double cpu) {
    Workload w = Workload.named(workload);
    long total = RequestGuard.byVerb(verbs).values().stream().mapToLong(Long::longValue).sum();
    return Map.of("workload", workload, "objects", w.objects(), "contender", contender, "repetition", 1,
        "seconds", seconds, "api_requests", total, "requests_by_verb", verbs, "leftover", 0, "outcome", "ok",
        "cpu_seconds", Fmt.plain(cpu, 3));
  }

  @Test
  void theMinimumOfACascadeIsSpecsWritesTheStartRecordAndTwoEvents() {
    // wide 2,000: a DELETE per dependent, the root's finalizer removal; its start record; Started, Completed
    assertEquals(2_000 + 1 + 1 + 2, RequestGuard.minimum(Workload.named("wide-2000")));
    // tree 10x3: 1,000 leaves; 110 inner dependents with a finalizer, a DELETE and its removal; the root's release
    assertEquals(1_000 + 3 * 110 + 1 + 1 + 2, RequestGuard.minimum(Workload.named("tree-10x3")));
  }

  @Test
  void aRunAtTheMinimumPassesWhateverItsListsAndWatchesUpToOnePerKindAndOwner() {
    RequestGuard guard = new RequestGuard(run("create=3;delete=2000;list=29;patch=2",
        "create=3;delete=1110;list=182;patch=222;watch=1"), KINDS);
    assertTrue(guard.passed(), guard.report());
    assertTrue(guard.report().contains("tree-10x3"), guard.report());
  }

  @Test
  void fivePercentAboveTheMinimumPassesAndMoreFails() {
    int min = RequestGuard.minimum(Workload.named("wide-2000")); // 2,004: 100.2 may be extra
    assertTrue(new RequestGuard(run("create=3;delete=2000;patch=2;get=" + 99, "delete=1110;patch=222;create=3"),
        KINDS).passed());
    RequestGuard over = new RequestGuard(run("create=3;delete=2000;patch=2;get=" + 101,
        "delete=1110;patch=222;create=3"), KINDS);
    assertFalse(over.passed(), over.report());
    assertTrue(over.report().contains("wide-2000: FAILED"), over.report());
    assertEquals(2_004, min);
  }

  @Test
  void aGetPerDependentFails() {
    RequestGuard guard = new RequestGuard(run("create=3;delete=2000;list=29;patch=2;get=2000",
        "create=3;delete=1110;list=87;patch=222;get=1110"), KINDS);
    assertFalse(guard.passed(), guard.report());
  }

  @Test
  void moreListsThanOnePerKindAndOwnerFail() {
    // tree 10x3 has 111 owners (the root and 110 inner dependents): at most 3,330 LISTs of 30 kinds
    assertTrue(new RequestGuard(run("create=3;delete=2000;list=30;patch=2",
        "create=3;delete=1110;list=3330;patch=222"), KINDS).passed());
    RequestGuard guard = new RequestGuard(run("create=3;delete=2000;list=30;patch=2",
        "create=3;delete=1110;list=3331;patch=222"), KINDS);
    assertFalse(guard.passed(), guard.report());
  }

  @Test
  void aFailedOrMissingCascadeFails() {
    Csv csv = run("create=3;delete=2000;list=29;patch=2", "create=3;delete=1110;list=87;patch=222");
    csv.rows.get(1).put("outcome", "timed_out");
    assertFalse(new RequestGuard(csv, KINDS).passed());
    Csv floorOnly = new Csv(CompareCommand.HEADER);
    floorOnly.add(row("wide-2000", "floor-unlimited", 18.3, "delete=2001", Double.NaN));
    assertFalse(new RequestGuard(floorOnly, KINDS).passed(), "no syncgc run: nothing was guarded");
  }

  @Test
  void theHistoryRowHasTheRatiosCpuAndCommit() {
    RequestGuard guard = new RequestGuard(run("create=3;delete=2000;list=29;patch=2",
        "create=3;delete=1110;list=87;patch=222"), KINDS);
    Map<String, ?> row = guard.historyRow();
    assertEquals("abc1234", row.get("commit"));
    assertEquals("wide-2000=1.42;tree-10x3=1.52", row.get("ratio_to_floor"));
    assertEquals("wide-2000=6.760;tree-10x3=4.080", row.get("cpu_seconds"));
    assertEquals("wide-2000=2005/2004;tree-10x3=1335/1334", row.get("requests_to_minimum"));
    assertEquals("passed", row.get("outcome"));
    assertEquals(List.copyOf(RequestGuard.HISTORY_HEADER), List.copyOf(row.keySet()));
    Csv dirty = run("create=3;delete=2000;list=29;patch=2", "create=3;delete=1110;list=87;patch=222");
    dirty.meta.put("syncgc", "0.1.0-SNAPSHOT (1e07ff3, with local changes)");
    assertEquals("1e07ff3 with local changes", new RequestGuard(dirty, KINDS).historyRow().get("commit"));
  }
}
