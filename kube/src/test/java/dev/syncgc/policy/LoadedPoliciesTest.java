package dev.syncgc.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.syncgc.core.policy.Policy;
import dev.syncgc.kube.ScriptedApiServer;
import dev.syncgc.kube.ScriptedApiServer.Answer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One rule for policies, for the operator, the uninstall and the plugin (three rules
 * before: the plugin dropped what it could not read without a word, the uninstall refused, the
 * operator failed to start on any error, a missing CRD included).
 */
class LoadedPoliciesTest {
  private static final String STATUS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",";

  private static LoadedPolicies loadAnswered(Answer answer) {
    try (ScriptedApiServer server = new ScriptedApiServer(x -> answer)) {
      return LoadedPolicies.load(server.client);
    }
  }

  @Test
  void aClusterWithoutThePolicyCrdHasNoPoliciesWhichIsKnown() {
    LoadedPolicies loaded = loadAnswered(new Answer(404, null, STATUS + "\"reason\":\"NotFound\",\"code\":404}"));
    assertEquals(List.of(), loaded.validOrThrow());
    assertNull(loaded.unreadable());
  }

  @Test
  void policiesThatCannotBeListedAreUnreadNotNone() {
    LoadedPolicies loaded = loadAnswered(new Answer(403, null, STATUS + "\"reason\":\"Forbidden\",\"code\":403}"));
    assertEquals("GarbageCollectionPolicies could not be listed (forbidden)", loaded.unreadable());
    assertThrows(IllegalStateException.class, loaded::validOrThrow);
    assertEquals("GarbageCollectionPolicies could not be listed (HTTP 500)",
        loadAnswered(new Answer(500, null, STATUS + "\"code\":500}")).unreadable());
  }

  @Test
  void anInvalidPolicyIsNamedAndNotUsed() {
    String list = "{\"apiVersion\":\"syncgc.dev/v1alpha1\",\"kind\":\"GarbageCollectionPolicyList\",\"metadata\":{},"
        + "\"items\":[" + policy("good", "Orphan") + "," + policy("bad", "Sideways") + "]}";
    LoadedPolicies loaded = loadAnswered(new Answer(200, null, list));
    assertEquals(List.of("good"), loaded.validOrThrow().stream().map(Policy::name).toList());
    assertEquals(Map.of("bad", "spec.propagation 'Sideways' must be one of Synchronous, Orphan, Background"),
        loaded.invalid());
  }

  private static String policy(String name, String propagation) {
    return "{\"apiVersion\":\"syncgc.dev/v1alpha1\",\"kind\":\"GarbageCollectionPolicy\",\"metadata\":{\"name\":\""
        + name + "\"},\"spec\":{\"propagation\":\"" + propagation + "\",\"kinds\":[{\"group\":\"apps\","
        + "\"kind\":\"Deployment\"}]}}";
  }

  @Test
  void onlyTheValidPoliciesOfAListAreLoaded() {
    LoadedPolicies loaded = LoadedPolicies.translate(List.of(
        PolicyTranslatorTest.resource("good", s -> s.setPropagation("Orphan")),
        PolicyTranslatorTest.resource("bad", s -> s.setPropagation("Sideways")),
        PolicyTranslatorTest.resource("also-good", s -> s.setPropagation("Synchronous"))));

    assertEquals(List.of("good", "also-good"), loaded.valid().stream().map(Policy::name).toList());
    assertEquals(Map.of("bad", "spec.propagation 'Sideways' must be one of Synchronous, Orphan, Background"),
        loaded.invalid(), "named with why");
  }
}
