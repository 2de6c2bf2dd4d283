package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.policy.Policy;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class PolicyReconcilerTest {
  private static GarbageCollectionPolicy resource(String name, String propagation) {
    PolicySpec.GroupKindSpec kind = new PolicySpec.GroupKindSpec();
    kind.setGroup("example.com");
    kind.setKind("Widget");
    PolicySpec spec = new PolicySpec();
    spec.setKinds(List.of(kind));
    spec.setPropagation(propagation);
    GarbageCollectionPolicy resource = new GarbageCollectionPolicy();
    resource.setMetadata(new ObjectMetaBuilder().withName(name).build());
    resource.setSpec(spec);
    return resource;
  }

  @Test
  void onlyTheValidPoliciesOfAListAreLoaded() {
    LoadedPolicies loaded = LoadedPolicies.translate(List.of(resource("good", "Orphan"), resource("bad", "Sideways"),
        resource("also-good", "Synchronous")));

    assertEquals(List.of("good", "also-good"), loaded.valid().stream().map(Policy::name).toList());
    assertEquals(java.util.Map.of("bad", "spec.propagation 'Sideways' must be one of Synchronous, Orphan, Background"),
        loaded.invalid(), "named with why");
  }
}
