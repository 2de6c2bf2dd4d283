package dev.syncgc.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.kube.TrackedKind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class NotesTest {
  @Test
  void kindsThatCouldNotBeListedAreNamedInOneLineByWhyAndScope() {
    List<Snapshot.Unlisted> unlisted = new ArrayList<>();
    unlisted.add(new Snapshot.Unlisted(new TrackedKind("", "v1", "Secret", "secrets", true), 403));
    for (String plural : List.of("nodes", "namespaces", "persistentvolumes")) {
      unlisted.add(new Snapshot.Unlisted(new TrackedKind("", "v1", plural, plural, false), 403));
    }
    unlisted.add(new Snapshot.Unlisted(new TrackedKind("metrics.k8s.io", "v1beta1", "PodMetrics", "pods", true), 503));

    String line = Notes.notCheckedLine(unlisted);

    assertEquals(1, line.lines().count(), line);
    assertEquals("warning: could not list 5 kinds, so their objects are not shown and an owner among them counts as"
        + " there (failed (503): pods.metrics.k8s.io; forbidden: secrets; forbidden, cluster-scoped: nodes, namespaces,"
        + " persistentvolumes); ask for list rights on them, or use another --context", line);
  }
}
