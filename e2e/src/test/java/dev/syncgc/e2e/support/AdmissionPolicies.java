package dev.syncgc.e2e.support;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;

/**
 * ValidatingAdmissionPolicies that refuse DELETEs, as Kyverno, Gatekeeper or a "protected" label
 * policy do in real clusters: the API server answers the DELETE with its own message, never a conflict.
 */
public final class AdmissionPolicies {
  /** The message the policies give; the API server's answer quotes it. */
  public static final String MESSAGE = "this object is protected from deletion (e2e)";
  /** The label that marks an object protected. */
  public static final String PROTECTED = "e2e.syncgc.dev/protected";

  private AdmissionPolicies() {}

  /** A policy in force until closed. */
  public interface Policy extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * Refuses every DELETE of an object of {@code group}/{@code resource} labelled {@link #PROTECTED}, in
   * {@code namespace} only (null: everywhere); returns once the API server enforces it, as told by
   * {@code refusesNow} (a probe DELETE that must be refused).
   */
  public static Policy denyDeleteOfProtected(KubernetesClient client, String name, String group, String resource,
      String namespace, BooleanSupplier refusesNow) {
    String scope = namespace == null ? ""
        : "    namespaceSelector:\n      matchLabels: {kubernetes.io/metadata.name: " + namespace + "}\n";
    String yaml = """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: %1$s}
        spec:
          failurePolicy: Fail
          matchConstraints:
        %5$s    resourceRules:
            - apiGroups: ["%2$s"]
              apiVersions: ["*"]
              operations: ["DELETE"]
              resources: ["%3$s"]
          validations:
          - expression: "!has(oldObject.metadata.labels) || !('%4$s' in oldObject.metadata.labels)"
            message: "%6$s"
        """.formatted(name, group, resource, PROTECTED, scope, MESSAGE);
    return apply(client, name, yaml, refusesNow);
  }

  /**
   * Refuses every UPDATE of a Widget that removes a reference to an owner whose uid its annotation
   * {@code annotation} lists (comma-separated): whoever sends it, the built-in collector's orphaning
   * included, which then retries for ever and keeps the owner's {@code orphan} finalizer. Returns once
   * {@code refusesNow} (a probe that must be refused) says it is enforced.
   */
  public static Policy pinOwnerReferences(KubernetesClient client, String name, String annotation,
      BooleanSupplier refusesNow) {
    String yaml = """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: %1$s}
        spec:
          failurePolicy: Fail
          matchConstraints:
            resourceRules:
            - apiGroups: ["%2$s"]
              apiVersions: ["*"]
              operations: ["UPDATE"]
              resources: ["widgets"]
          validations:
          - expression: >-
              !has(oldObject.metadata.annotations) || !('%3$s' in oldObject.metadata.annotations)
              || !has(oldObject.metadata.ownerReferences)
              || oldObject.metadata.annotations['%3$s'].split(',').all(u,
                   !oldObject.metadata.ownerReferences.exists(r, r.uid == u)
                   || (has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(r, r.uid == u)))
            message: "this owner reference is pinned (e2e)"
        """.formatted(name, "test.syncgc.dev", annotation);
    return apply(client, name, yaml, refusesNow);
  }

  /** Applies the ValidatingAdmissionPolicy {@code name} ({@code yaml}) and a binding of it that denies what it refuses. */
  private static Policy apply(KubernetesClient client, String name, String yaml, BooleanSupplier refusesNow) {
    String bound = yaml + """
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata: {name: %1$s}
        spec:
          policyName: %1$s
          validationActions: [Deny]
        """.formatted(name);
    client.load(new ByteArrayInputStream(bound.getBytes(StandardCharsets.UTF_8))).forceConflicts().serverSideApply();
    Policy policy = () -> client.load(new ByteArrayInputStream(("""
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicyBinding
        metadata: {name: %1$s}
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: %1$s}
        """).formatted(name).getBytes(StandardCharsets.UTF_8))).delete();
    Awaitility.await("the admission policy refuses").atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(refusesNow::getAsBoolean);
    return policy;
  }

  /** Whether a request was refused by admission (403 or 422), as {@code request} sends it. */
  public static boolean refused(Runnable delete) {
    try {
      delete.run();
      return false;
    } catch (KubernetesClientException e) {
      return e.getCode() == 422 || e.getCode() == 403;
    }
  }
}
