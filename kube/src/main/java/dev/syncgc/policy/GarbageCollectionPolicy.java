package dev.syncgc.policy;

import io.fabric8.crd.generator.annotation.AdditionalPrinterColumn;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * Opts whole kinds, namespaces or label selections in to syncgc at once. Cluster-scoped. An
 * annotation on an object wins over any policy; among policies, the highest priority wins, then
 * the name that sorts first. {@code kubectl get syncgc} lists them (category syncgc). The generator
 * sorts the printer columns by JSON path; PolicyCrd, which generates the CRD, puts Age last.
 */
@Group("syncgc.dev")
@Version("v1alpha1")
@Kind("GarbageCollectionPolicy")
@Plural("garbagecollectionpolicies")
@Singular("garbagecollectionpolicy")
@ShortNames("gcpolicy")
@Categories("syncgc")
@AdditionalPrinterColumn(name = "Propagation", jsonPath = ".spec.propagation", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Priority", jsonPath = ".spec.priority", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Matched", jsonPath = ".status.matchedObjects", type = AdditionalPrinterColumn.Type.INTEGER)
@AdditionalPrinterColumn(name = "Ready", jsonPath = ".status.conditions[?(@.type==\"Ready\")].status", type = AdditionalPrinterColumn.Type.STRING)
@AdditionalPrinterColumn(name = "Age", jsonPath = ".metadata.creationTimestamp", type = AdditionalPrinterColumn.Type.DATE)
public class GarbageCollectionPolicy extends CustomResource<PolicySpec, PolicyStatus> {
  private static final long serialVersionUID = 1L;
}
