package dev.syncgc.kube;

import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;

/** Answers the graph's questions about owner kinds from discovery and the running informers. */
public final class LiveKindInfo implements KindInfo {
  private final Discovery discovery;
  private final ObjectInformers informers;

  public LiveKindInfo(Discovery discovery, ObjectInformers informers) {
    this.discovery = discovery;
    this.informers = informers;
  }

  @Override
  public Scope scope(OwnerLink link) {
    return discovery.scopeOf(link.apiVersion(), link.kind());
  }

  @Override
  public boolean tracked(OwnerLink link) {
    return informers.tracks(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
  }
}
