package dev.syncgc.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A results file: {@code # key: value} lines (the run's machine, versions, settings), then a plain
 * CSV table with a header. Values never contain commas or line breaks (they are replaced).
 */
final class Csv {
  final Map<String, String> meta = new LinkedHashMap<>();
  final List<String> header;
  final List<Map<String, String>> rows = new ArrayList<>();

  Csv(List<String> header) {
    this.header = List.copyOf(header);
  }

  void add(Map<String, ?> row) {
    Map<String, String> clean = new LinkedHashMap<>();
    for (String h : header) {
      Object v = row.get(h);
      clean.put(h, v == null ? "" : clean(String.valueOf(v)));
    }
    rows.add(clean);
  }

  static String clean(String s) {
    return s.replace(',', ';').replace('\n', ' ').replace('\r', ' ');
  }

  void write(Path file) throws IOException {
    if (file.getParent() != null) {
      Files.createDirectories(file.getParent());
    }
    StringBuilder out = new StringBuilder();
    meta.forEach((k, v) -> out.append("# ").append(k).append(": ").append(v.replace('\n', ' ')).append('\n'));
    out.append(String.join(",", header)).append('\n');
    for (Map<String, String> row : rows) {
      out.append(String.join(",", header.stream().map(h -> row.getOrDefault(h, "")).toList())).append('\n');
    }
    Files.writeString(file, out.toString(), StandardCharsets.UTF_8);
  }

  static Optional<Csv> read(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return Optional.empty();
    }
    Map<String, String> meta = new LinkedHashMap<>();
    Csv csv = null;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      if (line.startsWith("#")) {
        int colon = line.indexOf(':');
        if (colon > 0) {
          meta.put(line.substring(1, colon).strip(), line.substring(colon + 1).strip());
        }
      } else if (csv == null) {
        csv = new Csv(Arrays.asList(line.split(",", -1)));
      } else {
        String[] values = line.split(",", -1);
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < csv.header.size(); i++) {
          row.put(csv.header.get(i), i < values.length ? values[i] : "");
        }
        csv.rows.add(row);
      }
    }
    if (csv == null) {
      return Optional.empty();
    }
    csv.meta.putAll(meta);
    return Optional.of(csv);
  }

  static double number(Map<String, String> row, String key) {
    String v = row.get(key);
    if (v == null || v.isBlank()) {
      return Double.NaN;
    }
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }
}
