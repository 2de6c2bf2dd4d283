package dev.syncgc.core.graph;

import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;

/**
 * What is known of an owner reference's kind now. Asked at query time, not when the reference was
 * read, so that a kind defined later (a new CRD) counts as soon as it is known.
 */
public interface KindInfo {
  Scope scope(OwnerLink link);

  boolean tracked(OwnerLink link);

}
