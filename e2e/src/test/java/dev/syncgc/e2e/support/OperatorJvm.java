package dev.syncgc.e2e.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code java} command line of the operator processes the tests start: the JVM starts faster, which
 * is all it changes. The suite starts about a hundred of them, each of which used to spend about 8 s of
 * CPU (JIT compilation and class loading, on the 2 cores the test JVM and the control plane share)
 * before it was ready; with C1 only ({@code -XX:TieredStopAtLevel=1}, as {@code kubectl syncgc} runs)
 * and a class-data archive of the operator's classes, about 4 s. The first operator process of a test
 * JVM writes the archive when it exits ({@code -XX:ArchiveClassesAtExit}, to a file of its own, put in
 * place only once that process has exited); later ones map it. A missing or stale archive (another jar)
 * only costs the start-up time: the JVM then runs without it.
 */
final class OperatorJvm {
  private static final Map<Process, Path> DUMPING = new ConcurrentHashMap<>();

  private OperatorJvm() {}

  /** {@code java <flags> -jar <jar>}; call {@link #started} with the process it started. */
  static synchronized List<String> command(Path jar) {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-XX:TieredStopAtLevel=1", "-Xlog:cds*=off"));
    Path archive = archive(jar);
    promoteFinishedDumps(archive);
    if (Files.isRegularFile(archive)) {
      command.add("-XX:SharedArchiveFile=" + archive);
    } else if (DUMPING.isEmpty()) {
      command.add("-XX:ArchiveClassesAtExit=" + archive.resolveSibling(archive.getFileName() + ".part"));
    }
    command.addAll(List.of("-jar", jar.toString()));
    return command;
  }

  /** Records the process started with {@code command}: if it writes the archive, it is put in place once it exited. */
  static synchronized void started(List<String> command, Process process) {
    command.stream().filter(a -> a.startsWith("-XX:ArchiveClassesAtExit=")).findFirst()
        .ifPresent(a -> DUMPING.put(process, Path.of(a.substring(a.indexOf('=') + 1))));
  }

  /** Whether {@code process} writes the archive when it exits (it does not if it is killed). */
  static synchronized boolean writesArchive(Process process) {
    return DUMPING.containsKey(process);
  }

  private static void promoteFinishedDumps(Path archive) {
    DUMPING.entrySet().removeIf(dump -> {
      if (dump.getKey().isAlive()) {
        return false;
      }
      try {
        if (Files.size(dump.getValue()) > 0) { // absent or empty after a SIGKILL: the next start writes one
          Files.move(dump.getValue(), archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
      } catch (IOException e) {
        // no archive: the next start writes one
      }
      return true;
    });
  }

  /** One archive per jar (path, size and time): a rebuilt jar gets a new one. */
  private static Path archive(Path jar) {
    try {
      Path dir = Files.createDirectories(TestCluster.targetDir().resolve("operator-cds"));
      String key = Integer.toHexString((jar.toAbsolutePath() + ":" + Files.size(jar) + ":"
          + Files.getLastModifiedTime(jar).toMillis()).hashCode());
      return dir.resolve("operator-" + key + ".jsa");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
