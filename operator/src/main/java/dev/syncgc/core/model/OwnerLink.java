package dev.syncgc.core.model;

/**
 * One entry of {@code metadata.ownerReferences}. What the owner's kind is (its scope, whether syncgc
 * watches it) is not recorded here: the graph asks {@code KindInfo} when it needs to know, so that a
 * kind defined later (a new CRD) counts as soon as it is known.
 */
public record OwnerLink(String uid, String apiVersion, String kind, String name) {}
