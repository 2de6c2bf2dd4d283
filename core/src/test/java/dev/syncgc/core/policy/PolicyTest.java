package dev.syncgc.core.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import dev.syncgc.core.settings.Setting;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PolicyTest {
  private static ObjectMetadata object(String apiVersion, String kind, Map<String, String> annotations) {
    return new ObjectMetadata(new ObjectRef(apiVersion, kind, "default", "o", "uid-o"), 1, List.of(),
        List.of(), null, null, annotations, Map.of());
  }

  private static Policy policy(Policy.GroupKind... kinds) {
    return new Policy("p", 0, List.of(kinds), Selector.EVERYTHING, Selector.EVERYTHING,
        DeletionSettings.NONE.with(Setting.PROPAGATION, Propagation.SYNCHRONOUS).with(Setting.ON_TIMEOUT, OnTimeout.KEEP));
  }

  @Test
  void theWaveComesFromTheExactKindEntryBeforeTheWildcard() {
    Policy p = policy(new Policy.GroupKind("apps", "*", Optional.of(1)),
        new Policy.GroupKind("apps", "Deployment", Optional.of(5)));

    assertEquals(5, p.settingsFor(object("apps/v1", "Deployment", Map.of())).wave());
    assertEquals(1, p.settingsFor(object("apps/v1", "StatefulSet", Map.of())).wave());
    assertEquals(OnTimeout.KEEP, p.settingsFor(object("apps/v1", "StatefulSet", Map.of())).onTimeout().orElse(OnTimeout.RELEASE));
  }

  @Test
  void anEntryWithoutAWaveGivesNone() {
    Policy p = policy(new Policy.GroupKind("", "ConfigMap"));

    assertEquals(Optional.empty(), p.settingsFor(object("v1", "ConfigMap", Map.of())).get(Setting.DELETION_WAVE));
  }
}
