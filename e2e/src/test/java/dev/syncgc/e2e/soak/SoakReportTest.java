package dev.syncgc.e2e.soak;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The soak's floors, on rounds made up here. */
class SoakReportTest {

  private static SoakRound.Result round(int number, int usersFirst, int inUse) {
    Checks.Judged judged = new Checks.Judged(List.of(), usersFirst, 0, 0, usersFirst, 0, inUse, 0);
    return new SoakRound.Result(number, 10, Faults.Fault.NONE, "none", 0, Map.of(), 5, 5, 0, "",
        SoakRound.Deadlines.NONE, null, new AuditCheck.Counts(0, 0, 0, 0, 0, 0, 0, 0), judged, 0,
        SoakRound.Usage.NONE, List.of());
  }

  private static SoakReport report(Soak.Uses uses, SoakRound.Result... rounds) {
    SoakReport report = new SoakReport(1);
    report.uses = uses;
    for (SoakRound.Result r : rounds) {
      report.add(r, "-");
    }
    return report;
  }

  @Test
  void tooFewUsagePairsJudgedFailTheSoakWithWideUsageEdges() {
    assertFalse(report(Soak.Uses.WIDE, round(1, 0, 0), round(2, 0, 0), round(3, 0, 0)).usageFloorMet(),
        "a generator that drew no edge");
    assertFalse(report(Soak.Uses.WIDE, round(1, 1, 0), round(2, 0, 1), round(3, 0, 0)).usageFloorMet(),
        "2 pairs in 3 rounds");
    assertTrue(report(Soak.Uses.WIDE, round(1, 1, 0), round(2, 0, 1), round(3, 0, 1)).usageFloorMet(),
        "users before what they use and holds count alike");
    assertTrue(report(Soak.Uses.WIDE, round(1, 0, 0), round(2, 0, 0)).usageFloorMet(), "a replay of fewer rounds");
    assertTrue(report(Soak.Uses.ALL, round(1, 0, 0), round(2, 0, 0), round(3, 0, 0)).usageFloorMet(),
        "edges inside one cascade only: no floor");
    assertTrue(report(Soak.Uses.WIDE, round(1, 0, 0), round(2, 0, 0), round(3, 0, 0)).markdown()
        .contains("BELOW THE FLOOR"));
  }
}
