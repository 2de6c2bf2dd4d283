package dev.syncgc.core.deletion.inuse;

import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.model.ObjectRef;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToIntFunction;

/**
 * SPEC "In use", inside a cascade: a dependent with users left is not deleted yet, and its users go
 * first, whatever their waves or subtrees: where uses cross the dependents' subtrees, the waves give
 * way ({@link WavesByUse}), so that a user is never held back behind what it uses.
 */
public final class UsersFirst {
  public static final UsersFirst NONE = new UsersFirst(Map.of(), Map.of(), null, List.of());

  private final Map<ObjectRef, List<ObjectMetadata>> held; // dependent -> its users
  private final Map<ObjectRef, Integer> waves; // the wave each dependent counts in, when raised
  private final ToIntFunction<ObjectMetadata> waveOf;
  private final List<List<ObjectRef>> rings;

  private UsersFirst(Map<ObjectRef, List<ObjectMetadata>> held, Map<ObjectRef, Integer> waves,
      ToIntFunction<ObjectMetadata> waveOf, List<List<ObjectRef>> rings) {
    this.held = held;
    this.waves = waves;
    this.waveOf = waveOf;
    this.rings = rings;
  }

  /** For the dependents an owner waits for (the owner itself among them, if it owns itself). */
  public static UsersFirst of(InUse.Lookup lookup, ObjectMetadata owner, List<ObjectMetadata> dependents,
      ToIntFunction<ObjectMetadata> waveOf, Predicate<ObjectMetadata> cascades) {
    Map<ObjectRef, List<ObjectMetadata>> held = new HashMap<>();
    Map<Set<ObjectRef>, List<ObjectRef>> rings = new LinkedHashMap<>(); // one each, whichever member found it
    Set<ObjectRef> going = new HashSet<>();
    dependents.forEach(d -> going.add(d.ref()));
    UsersRing search = new UsersRing(lookup, going, cascades);
    for (ObjectMetadata d : dependents) {
      if (!d.ref().equals(owner.ref())) {
        InUse.Hold hold = InUse.of(lookup, d, search);
        if (hold.holds()) {
          held.put(d.ref(), hold.users());
        } else if (!hold.ring().isEmpty()) {
          Set<ObjectRef> members = new HashSet<>(hold.ring());
          rings.putIfAbsent(members, hold.ring());
        }
      }
    }
    return new UsersFirst(held, WavesByUse.of(lookup, owner, dependents, waveOf, cascades), waveOf,
        List.copyOf(rings.values()));
  }

  /**
   * The rings of use (with ownership) among the dependents, released as units: each to be named once, as a
   * closed path through its members.
   */
  public List<List<ObjectRef>> rings() {
    return rings;
  }

  /** Whether the dependent has users left: it waits, whatever its wave. */
  public boolean held(ObjectMetadata dependent) {
    return held.containsKey(dependent.ref());
  }

  /** The wave the dependent counts in: its own, raised to that of what its subtree uses. */
  public int wave(ObjectMetadata dependent) {
    Integer raised = waves.get(dependent.ref());
    return raised != null ? raised : waveOf.applyAsInt(dependent);
  }
}
