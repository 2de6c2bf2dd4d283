package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.policy.Policy;
import dev.syncgc.core.policy.Selector;
import dev.syncgc.core.settings.OnTimeout;
import dev.syncgc.core.settings.Propagation;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** A GarbageCollectionPolicy object as the core sees it, and what becomes of an invalid one. */
class PolicyTranslatorTest {

  private static PolicySpec.GroupKindSpec kind(String group, String kind, Integer wave) {
    PolicySpec.GroupKindSpec k = new PolicySpec.GroupKindSpec();
    k.setGroup(group);
    k.setKind(kind);
    k.setDeletionWave(wave);
    return k;
  }

  static GarbageCollectionPolicy resource(String name, Consumer<PolicySpec> edit) {
    PolicySpec spec = new PolicySpec();
    spec.setKinds(List.of(kind("example.com", "Widget", null)));
    spec.setPropagation("Synchronous");
    edit.accept(spec);
    GarbageCollectionPolicy resource = new GarbageCollectionPolicy();
    resource.setMetadata(new ObjectMetaBuilder().withName(name).withGeneration(3L).build());
    resource.setSpec(spec);
    return resource;
  }

  private static String invalid(Consumer<PolicySpec> edit) {
    return assertThrows(PolicyTranslator.InvalidPolicy.class,
        () -> PolicyTranslator.translate(resource("p", edit))).getMessage();
  }

  @Test
  void everyFieldReachesTheCorePolicy() throws Exception {
    Policy p = PolicyTranslator.translate(resource("full", s -> {
      s.setKinds(List.of(kind("example.com", "Widget", 2), kind(null, "ConfigMap", null)));
      s.setPropagation("Orphan");
      s.setTimeout("1m30s");
      s.setGracePeriodSeconds(7L);
      s.setOnTimeout("Keep");
      s.setPriority(5);
      s.setSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", "web"))
          .addNewMatchExpression().withKey("tier").withOperator("In").withValues("a", "b").endMatchExpression()
          .build());
      s.setNamespaceSelector(new LabelSelectorBuilder()
          .addNewMatchExpression().withKey("team").withOperator("Exists").endMatchExpression().build());
    }));

    assertEquals("full", p.name());
    assertEquals(5, p.priority());
    assertEquals(List.of(new Policy.GroupKind("example.com", "Widget", Optional.of(2)),
        new Policy.GroupKind("", "ConfigMap", Optional.empty())), p.kinds(), "a missing group is the core group");
    assertEquals(Optional.of(Propagation.ORPHAN), p.settings().propagation());
    assertEquals(Optional.of(Duration.ofSeconds(90)), p.settings().timeout());
    assertEquals(Optional.of(7L), p.settings().gracePeriodSeconds());
    assertEquals(Optional.of(OnTimeout.KEEP), p.settings().onTimeout());
    assertEquals(List.of(), p.settings().invalid());
    assertEquals(new Selector(Map.of("app", "web"),
        List.of(new Selector.Requirement("tier", Selector.Operator.In, Set.of("a", "b")))), p.selector());
    assertEquals(new Selector(Map.of(),
        List.of(new Selector.Requirement("team", Selector.Operator.Exists, Set.of()))), p.namespaceSelector());
  }

  @Test
  void whatIsLeftOutIsLeftToTheDefaults() throws Exception {
    Policy p = PolicyTranslator.translate(resource("min", s -> { }));

    assertEquals(0, p.priority());
    assertEquals(Selector.EVERYTHING, p.selector());
    assertEquals(Selector.EVERYTHING, p.namespaceSelector());
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), p.settings().propagation());
    assertEquals(Optional.empty(), p.settings().timeout());
    assertEquals(Optional.empty(), p.settings().gracePeriodSeconds());
    assertEquals(Optional.empty(), p.settings().onTimeout(), "not Release: the object's own annotation may say");
  }

  @Test
  void anInvalidPolicyIsRefusedWithTheFieldAndTheReason() {
    assertEquals("spec is missing", assertThrows(PolicyTranslator.InvalidPolicy.class, () -> {
      GarbageCollectionPolicy r = resource("p", s -> { });
      r.setSpec(null);
      PolicyTranslator.translate(r);
    }).getMessage());
    assertEquals("spec.kinds must name at least one kind", invalid(s -> s.setKinds(List.of())));
    assertTrue(invalid(s -> s.setKinds(List.of(kind("example.com", " ", null)))).startsWith("spec.kinds:"));
    assertEquals("spec.propagation 'orphan' must be one of Synchronous, Orphan, Background",
        invalid(s -> s.setPropagation("orphan")), "values are case-sensitive, as in the annotation");
    assertEquals("spec.propagation is required unless spec.keep is true", invalid(s -> s.setPropagation(null)));
    assertEquals("spec.propagation is required unless spec.keep is true", invalid(s -> {
      s.setPropagation(null);
      s.setKeep(false);
    }));
    assertTrue(invalid(s -> s.setTimeout("ten minutes")).startsWith("spec.timeout 'ten minutes' "));
    assertEquals("spec.gracePeriodSeconds '-1' must not be negative", invalid(s -> s.setGracePeriodSeconds(-1L)));
    assertEquals("spec.onTimeout 'keep' must be Release or Keep", invalid(s -> s.setOnTimeout("keep")));
    assertTrue(invalid(s -> s.setSelector(new LabelSelectorBuilder().addNewMatchExpression().withKey("k")
        .withOperator("Equals").withValues("v").endMatchExpression().build()))
        .startsWith("spec.selector: unknown selector operator 'Equals'"));
    assertTrue(invalid(s -> s.setNamespaceSelector(new LabelSelectorBuilder().addNewMatchExpression()
        .withKey("k").withOperator("In").endMatchExpression().build()))
        .startsWith("spec.namespaceSelector: selector operator In on 'k' needs values"));
  }

  @Test
  void aKeepingPolicyNeedsNoPropagationAndOptsNothingIn() throws Exception {
    Policy keep = PolicyTranslator.translate(resource("keep-data", s -> {
      s.setPropagation(null);
      s.setKeep(true);
    }));
    Policy both = PolicyTranslator.translate(resource("both", s -> s.setKeep(true)));

    assertEquals(Optional.empty(), keep.settings().propagation());
    assertTrue(keep.settings().keep());
    assertEquals(Optional.of(Propagation.SYNCHRONOUS), both.settings().propagation());
    assertTrue(both.settings().keep());
    assertEquals(Optional.empty(), PolicyTranslator.translate(resource("min", s -> { })).settings()
        .get(dev.syncgc.core.settings.Setting.KEEP), "not false: the object's own annotation may say");
  }
}
