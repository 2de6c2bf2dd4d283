package dev.syncgc.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The digest of an aggregated discovery answer (the shape of v1.36's, read off the local control plane). */
class AggregatedDiscoveryTest {
  private static final String ANSWER = """
      {"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
        {"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[
          {"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced",
           "verbs":["create","delete","get","list","watch"]}]}]},
        {"metadata":{"name":"example.com"},"versions":[{"version":"v1","resources":[
          {"resource":"widgets","responseKind":{"kind":"Widget"},"scope":"Namespaced","verbs":["list","watch","delete"]}]}]}]}
      """;

  @Test
  void everyResourceWithItsVerbsSorted() throws Exception {
    assertEquals("apps/v1/deployments [\"create\",\"delete\",\"get\",\"list\",\"watch\"]\n"
        + "example.com/v1/widgets [\"list\",\"watch\",\"delete\"]", AggregatedDiscovery.digest(ANSWER));
  }

  @Test
  void anApiServerWithoutAggregatedDiscoveryGivesNone() throws Exception {
    assertNull(AggregatedDiscovery.digest("{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}"));
  }
}
