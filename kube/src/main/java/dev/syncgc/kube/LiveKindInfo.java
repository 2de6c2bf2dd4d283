package dev.syncgc.kube;

import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.usage.KindNames;
import dev.syncgc.kube.reflector.Reflectors;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

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
    Map<String, TrackedKind> known = discovery.known();
    Names names = this.names;
    if (names == null || names.known() != known) { // the kinds changed: answers are worked out anew
      names = new Names(known, known.values().stream().map(k -> new KindNames.NamedKind(k.group(), k.kind(),
          k.plural(), discovery.shortNames(k.groupKind()), k.namespaced())).toList(), new ConcurrentHashMap<>());
      this.names = names;
    }
    List<KindNames.NamedKind> kinds = names.kinds();
    return names.answers().computeIfAbsent(name, n -> KindNames.resolve(kinds, n));
  }

  private record Names(Map<String, TrackedKind> known, List<KindNames.NamedKind> kinds,
      Map<String, KindNames.Resolution> answers) {}

  private volatile Names names;

  @Override
  public boolean tracked(OwnerLink link) {
    return reflectors.tracks(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
  }
}
