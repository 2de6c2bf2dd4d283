package dev.syncgc.core.graph;

import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.syncgc.core.TestObjects;
import dev.syncgc.core.model.Names;
import dev.syncgc.core.model.ObjectMetadata;
import dev.syncgc.core.settings.DeletionSettings;
import dev.syncgc.core.settings.Setting;
import dev.syncgc.core.settings.SettingsInForce;
import dev.syncgc.core.settings.UsersFrom;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * SPEC "In use", holding is bounded: a cluster-scoped object is held by namespaced users only from the
 * namespaces its opt-in allows; cluster-scoped users always count.
 */
class UsersFromTest {
  private final DependencyGraph graph = TestObjects.graph();

  private ObjectMetadata clusterScoped(String usersFrom) {
    var x = obj("x").kind("example.com/v1", "ClusterWidget").clusterScoped().name("x").syncFinalizer();
    ObjectMetadata used = usersFrom == null ? x.build() : x.annotate(Names.USERS_FROM, usersFrom).build();
    graph.upsert(used);
    return used;
  }

  private void users() {
    graph.upsert(obj("team-a-user").namespace("team-a").uses("clusterwidget/x").build());
    graph.upsert(obj("team-b-user").namespace("team-b").uses("clusterwidget/x").build());
    graph.upsert(obj("cluster-user").kind("example.com/v1", "ClusterWidget").clusterScoped().uses("clusterwidget/x")
        .build());
  }

  private List<String> usersOf(ObjectMetadata used) {
    return graph.usersOf(used).stream().map(ObjectMetadata::uid).toList();
  }

  private List<String> refused(ObjectMetadata used) {
    return graph.refusedUsersOf(used).stream().map(ObjectMetadata::uid).toList();
  }

  @Test
  void withNothingSetOnlyClusterScopedUsersHold() {
    ObjectMetadata x = clusterScoped(null);
    users();
    assertEquals(List.of("cluster-user"), usersOf(x));
    assertEquals(List.of("team-a-user", "team-b-user"), refused(x));
  }

  @Test
  void theAnnotationNamesTheNamespacesAllowed() {
    users();
    assertEquals(List.of("cluster-user", "team-a-user"), usersOf(clusterScoped("team-a, team-c")));
    assertEquals(List.of("team-b-user"), refused(graph.get("x")));
    assertEquals(List.of("cluster-user", "team-a-user", "team-b-user"), usersOf(clusterScoped("*")));
    assertEquals(List.of(), refused(graph.get("x")));
  }

  @Test
  void aPolicysUsersFromCountsAndTheAnnotationWinsOverIt() {
    DeletionSettings policy = DeletionSettings.NONE.with(Setting.USERS_FROM, new UsersFrom(false, Set.of("team-b")));
    graph.usersFrom(o -> SettingsInForce.of(o, DeletionSettings.fromAnnotations(o.annotations()).orElse(policy),
        Optional.empty()).usersFrom());
    users();
    assertEquals(List.of("cluster-user", "team-b-user"), usersOf(clusterScoped(null)));
    assertEquals(List.of("cluster-user", "team-a-user"), usersOf(clusterScoped("team-a")));
  }

  @Test
  void aNamespacedObjectIsHeldByTheUsersOfItsNamespaceAsBefore() {
    ObjectMetadata x = obj("x").name("x").syncFinalizer().build();
    graph.upsert(x);
    graph.upsert(obj("y").uses("widget/x").build());
    assertEquals(List.of("y"), usersOf(x));
    assertEquals(List.of(), refused(x));
  }
}
