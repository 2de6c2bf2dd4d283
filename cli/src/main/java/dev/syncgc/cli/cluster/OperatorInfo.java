package dev.syncgc.cli.cluster;

import dev.syncgc.cli.render.TreeView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whether the operator runs and leads, as far as can be told from the cluster: its Pods (the chart's
 * labels), the leader-election Lease in their namespace, and its {@code /metrics} through the API
 * server's Pod proxy. What cannot be read is said to be unknown, never guessed.
 */
public final class OperatorInfo {
  /** The chart's label on the operator's Pods and its Deployment. */
  public static final String POD_SELECTOR = "app.kubernetes.io/name=syncgc";

  public final List<String> facts = new ArrayList<>();
  public final Map<String, Object> model = new LinkedHashMap<>();
  /** The leading Pod's name, if known. */
  public String leaderPod;
  /** The Pod whose metrics tell the graph: the leader, or the only ready Pod when no Lease is held. */
  private String metricsPod;

  public static OperatorInfo read(Cluster cluster, String namespaceHint) {
    OperatorInfo info = new OperatorInfo();
    List<Pod> pods;
    try {
      var all = cluster.client.pods();
      pods = (namespaceHint != null ? all.inNamespace(namespaceHint) : all.inAnyNamespace())
          .withLabelSelector(POD_SELECTOR).list().getItems();
    } catch (KubernetesClientException e) {
      info.facts.add("operator: unknown (" + (e.getCode() == 403 ? "no right to list Pods" : "Pods cannot be listed")
          + ")");
      info.model.put("pods", "unknown");
      return info;
    }
    if (pods.isEmpty()) {
      info.facts.add("operator: no Pod labelled " + POD_SELECTOR + (namespaceHint == null ? "" : " in " + namespaceHint)
          + " (not installed with the chart, or running outside the cluster: ask its /readyz)");
      info.model.put("pods", List.of());
      return info;
    }
    long ready = pods.stream().filter(OperatorInfo::ready).count();
    String namespace = pods.get(0).getMetadata().getNamespace();
    info.facts.add("operator: " + pods.size() + " Pod" + (pods.size() == 1 ? "" : "s") + " in " + namespace + ", "
        + ready + " ready");
    info.model.put("namespace", namespace);
    info.model.put("pods", pods.stream().map(p -> Map.of("name", p.getMetadata().getName(), "ready", ready(p))).toList());
    info.lease(cluster, namespace, pods);
    if (info.leaderPod == null && ready == 1) { // one replica without leader election leads alone
      info.metricsPod = pods.stream().filter(OperatorInfo::ready).findFirst().orElseThrow().getMetadata().getName();
    }
    return info;
  }

  private void lease(Cluster cluster, String namespace, List<Pod> pods) {
    try {
      for (Lease lease : cluster.client.leases().inNamespace(namespace).list().getItems()) {
        String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
        for (Pod p : pods) {
          if (holder != null && holder.startsWith(p.getMetadata().getName())) {
            leaderPod = p.getMetadata().getName();
            metricsPod = leaderPod;
            ZonedDateTime renewed = lease.getSpec().getRenewTime();
            String age = renewed == null ? "?" : TreeView.human(Duration.between(renewed.toInstant(), Instant.now()));
            facts.add("leader: " + holder + " (Lease " + namespace + "/" + lease.getMetadata().getName() + ", renewed "
                + age + " ago)");
            model.put("leader", holder);
            model.put("leaseRenewedAgo", age);
            return;
          }
        }
      }
      facts.add("leader: none holds a Lease in " + namespace + " (one replica without --leader-election leads alone)");
    } catch (KubernetesClientException e) {
      facts.add("leader: unknown (Leases in " + namespace + " cannot be read)");
    }
  }

  /** A sample of the leader's (or the only Pod's) {@code /metrics}, read through the API server; null if unreadable. */
  public Double metric(Cluster cluster, String name) {
    String pod = metricsPod;
    if (pod == null || model.get("namespace") == null) {
      return null;
    }
    try {
      String text = cluster.client.raw("/api/v1/namespaces/" + model.get("namespace") + "/pods/" + pod
          + ":8080/proxy/metrics");
      if (text == null) {
        return null;
      }
      for (String line : text.split("\n")) {
        if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
          return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
    } catch (RuntimeException e) {
      return null;
    }
    return null;
  }

  private static boolean ready(Pod p) {
    return p.getStatus() != null && p.getStatus().getConditions() != null && p.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
