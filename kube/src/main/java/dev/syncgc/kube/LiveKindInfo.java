package dev.syncgc.kube;

import dev.syncgc.core.graph.KindInfo;
import dev.syncgc.core.model.OwnerLink;
import dev.syncgc.core.model.Scope;
import dev.syncgc.core.usage.KindNames;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/** Answers the graph's questions about owner kinds from discovery and the running reflectors. */
public final class LiveKindInfo implements KindInfo {
  private final Discovery discovery;
  private final Predicate<String> tracks;

  /**
   * @param tracks whether a kind ({@code group/Kind}) is watched now and its list not refused: the
   *     reflectors' {@code listable}; an owner of any other kind is presumed solid
   */
  public LiveKindInfo(Discovery discovery, Predicate<String> tracks) {
    this.discovery = discovery;
    this.tracks = tracks;
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
    return tracks.test(Discovery.groupOf(link.apiVersion()) + "/" + link.kind());
  }
}
