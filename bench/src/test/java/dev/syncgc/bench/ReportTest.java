package dev.syncgc.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ReportTest {
  /** A bench run rewrites the report from its CSVs; the sections written by hand below the marker stay. */
  @Test
  void rewritingTheReportKeepsWhatIsWrittenByHandBelowTheMarker(@TempDir Path dir) throws Exception {
    Path md = dir.resolve("benchmarks.md");
    Options opts = new Options();
    new CommandLine(new Object() {
      @CommandLine.Mixin Options o = opts;
    }).parseArgs("--docs", md.toString(), "--csv", dir.resolve("a.csv").toString(),
        "--growth-csv", dir.resolve("b.csv").toString(), "--scale-csv", dir.resolve("c.csv").toString());
    Report.writeMarkdown(opts);
    String first = Files.readString(md);
    assertTrue(first.endsWith(Report.KEPT + "\n"), first);

    String byHand = "## 1,000,000 tracked objects\n\n| figure | value |\n|---|---:|\n| ready | 43.9 s |\n";
    Files.writeString(md, first + byHand);
    Report.writeMarkdown(opts);
    Report.writeMarkdown(opts);

    String again = Files.readString(md);
    assertEquals(first + byHand, again);
    assertEquals(byHand, Report.kept(again));
    assertEquals("", Report.kept("# Benchmarks\n\n" + Report.KEPT), "a marker ending the file keeps nothing");
  }
}
