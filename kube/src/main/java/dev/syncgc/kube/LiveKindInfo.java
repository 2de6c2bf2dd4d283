package dev.syncgc.kube;

import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.usage.KindNames;
import dev.syncgc.kube.reflector.Reflectors;

/** Answers the graph's questions about owner kinds from discovery and the running reflectors. */
public final class LiveKindInfo implements KindInfo {
  private final Discovery discovery;
  private final Reflectors reflectors;

  public LiveKindInfo(Discovery discovery, Reflectors reflectors) {
    this.discovery = discovery;
    this.reflectors = reflectors;
  }

  @Override
  public Scope scope(OwnerLink link) {
    return discovery.scopeOf(link.apiVersion(), link.kind());
  }

  /** What a user's {@code syncgc.dev/uses} names, among the kinds discovery knows now (kubectl's rule). */
  @Override
  public KindNames.Resolution resolve(String name) {
    return discovery.resolve(name);
  }

  @Override
  public boolean tracked(OwnerLink link) {
    return reflectors.tracks(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
  }
}
