package dev.syncgc.cli.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.cli.cluster.Snapshot;
import dev.syncgc.kube.TrackedKind;
import dev.syncgc.policy.LoadedPolicies;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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

  /** The plugin reads policies by the operator's rule and says what it could not use (it said nothing). */
  @Test
  void policiesThatCouldNotBeReadOrAreInvalidAreSaidNeverDropped() {
    LoadedPolicies unread = new LoadedPolicies(List.of(), Map.of(),
        "GarbageCollectionPolicies could not be listed (forbidden)");
    LoadedPolicies invalid = new LoadedPolicies(List.of(),
        Map.of("bad", "spec.onTimeout 'keep' must be Release or Keep"), null);

    assertEquals(List.of("warning: GarbageCollectionPolicies could not be listed (forbidden), so settings are shown"
        + " from annotations alone (the operator reads the policies and may decide otherwise); ask for list rights"
        + " on garbagecollectionpolicies.syncgc.dev"), Notes.policyLines(unread));
    assertEquals(List.of("warning: GarbageCollectionPolicy bad is invalid and not used (spec.onTimeout 'keep' must be"
        + " Release or Keep)"), Notes.policyLines(invalid));
    assertEquals(List.of(), Notes.policyLines(new LoadedPolicies(List.of(), Map.of(), null)));
  }
}
