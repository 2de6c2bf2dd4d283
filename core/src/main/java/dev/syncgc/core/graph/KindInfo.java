package dev.syncgc.core.graph;

import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.usage.KindNames;

/**
 * What is known of an owner reference's kind now. Asked at query time, not when the reference was
 * read, so that a kind defined later (a new CRD) counts as soon as it is known.
 */
public interface KindInfo {
  Scope scope(OwnerLink link);

  boolean tracked(OwnerLink link);

  /** The kind a user names in {@code syncgc.dev/uses} ({@link KindNames}), from what is known now. */
  default KindNames.Resolution resolve(String name) {
    return new KindNames.Resolution(null, "no kind is known here");
  }
}
