package dev.syncgc.core.model;

/**
 * One entry of {@code metadata.ownerReferences}, with what discovery knows of the owner's kind.
 *
 * @param scope the owner kind's scope, {@link Scope#UNKNOWN} if the API server does not serve it
 * @param tracked whether syncgc watches the owner's kind; an untracked owner cannot be seen, so
 *     it is presumed solid
 */
public record OwnerLink(
    String uid, String apiVersion, String kind, String name, Scope scope, boolean tracked) {}
