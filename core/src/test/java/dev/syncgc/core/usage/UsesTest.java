package dev.syncgc.core.usage;

import static dev.syncgc.core.TestObjects.NAMED_KINDS;
import static dev.syncgc.core.TestObjects.obj;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.syncgc.core.model.ObjectMetadata;
import java.util.List;
import org.junit.jupiter.api.Test;

/** SPEC "In use": how a user names what it uses, and what does not name anything. */
class UsesTest {

  private static List<Use> uses(ObjectMetadata user) {
    return Use.of(user, name -> KindNames.resolve(NAMED_KINDS, name));
  }

  @Test
  void kindsAreNamedAsKubectlNamesThem() {
    ObjectMetadata user = obj("y").uses("ConfigMap/a, configmaps/b, configmap/c, CM/d, widget/e,"
        + " widgets.example.com/f, Widget.example.com/g, clusterwidget/h,").build();
    List<String> named = uses(user).stream().map(Use::toString).toList();
    assertEquals(List.of("ConfigMap/default/a", "ConfigMap/default/b", "ConfigMap/default/c", "ConfigMap/default/d",
        "Widget.example.com/default/e", "Widget.example.com/default/f", "Widget.example.com/default/g",
        "ClusterWidget.example.com/h"), named, "namespaced: in the user's namespace; cluster-scoped: by name");
  }

  @Test
  void everyNameThatNamesNothingSaysWhy() {
    ObjectMetadata user = obj("y").uses("nosuchkind/x, configmap/other-ns/db, bad syntax, gadget/g,"
        + " /x, configmap/").build();
    List<String> errors = uses(user).stream().filter(u -> !u.valid()).map(Use::error).toList();
    assertEquals(6, errors.size(), errors.toString());
    assertTrue(errors.stream().anyMatch(e -> e.contains("the server has no kind \"nosuchkind\"")), errors.toString());
    assertTrue(errors.stream().anyMatch(e -> e.contains("names another namespace")), errors.toString());
    assertTrue(errors.stream().anyMatch(e -> e.contains("\"bad syntax\" is not KIND[.GROUP]/NAME")), errors.toString());
    assertTrue(errors.stream().anyMatch(e -> e.contains("served by more than one group: gadgets.example.com,"
        + " gadgets.other.example.com")), "ambiguous: both groups named " + errors);
  }

  @Test
  void aClusterScopedUserCannotNameANamespacedObject() {
    Use use = uses(obj("y").kind("example.com/v1", "ClusterWidget").clusterScoped().uses("configmap/a").build()).get(0);
    assertFalse(use.valid());
    assertTrue(use.error().contains("ConfigMap is namespaced and ClusterWidget is cluster-scoped"), use.error());
  }

  @Test
  void anObjectIsNamedWithoutItsUidSoThatOneCreatedLaterMatches() {
    Use use = uses(obj("y").uses("widget/x").build()).get(0);
    assertTrue(use.is(obj("uid-1").name("x").build().ref()));
    assertTrue(use.is(obj("uid-2").name("x").build().ref()), "recreated: a new uid, the same object named");
    assertFalse(use.is(obj("uid-3").name("x").namespace("other").build().ref()));
    assertFalse(use.is(obj("uid-4").name("x").kind("v1", "ConfigMap").build().ref()));
  }

  @Test
  void noAnnotationNamesNothing() {
    assertEquals(Uses.NONE, Uses.parse(null));
    assertEquals(Uses.NONE, Uses.parse(" "));
  }
}
