package dev.syncgc.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.IVersionProvider;

/** What a result needs to be read: date, machine, load, versions. */
final class Machine {
  private Machine() {}

  static void describe(Map<String, String> meta, Cluster cluster) {
    meta.put("date", ZonedDateTime.now(ZoneOffset.UTC).format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
    meta.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
    meta.put("memory", memory());
    meta.put("cpu", cpu());
    meta.put("kubernetes", cluster.serverVersion());
    meta.put("syncgc", syncgcVersion());
    meta.put("java", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version"));
  }

  static String load() {
    try {
      String[] p = Files.readString(Path.of("/proc/loadavg")).split("\\s+");
      return p[0] + " " + p[1] + " " + p[2];
    } catch (IOException e) {
      return "unknown";
    }
  }

  static String memory() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
          return String.format(java.util.Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
        }
      }
    } catch (IOException | NumberFormatException e) {
      // fall through
    }
    return Runtime.getRuntime().maxMemory() / (1 << 20) * 4 + " MiB (estimated)";
  }

  static String cpu() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException e) {
      // fall through
    }
    return System.getProperty("os.arch");
  }

  /** The project version, and the git commit of the working tree when there is one. */
  static String syncgcVersion() {
    String version = Machine.class.getPackage().getImplementationVersion();
    if (version == null) {
      version = "dev";
    }
    String commit = git("rev-parse", "--short", "HEAD");
    if (commit.isEmpty()) {
      return version;
    }
    String dirty = git("status", "--porcelain", "--untracked-files=no");
    return version + " (" + commit + (dirty.isEmpty() ? "" : ", with local changes") + ")";
  }

  private static String git(String... args) {
    try {
      String[] command = new String[args.length + 1];
      command[0] = "git";
      System.arraycopy(args, 0, command, 1, args.length);
      Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      return new String[] {"syncgc-bench " + syncgcVersion()};
    }
  }
}
