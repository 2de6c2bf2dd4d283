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
  void atMostAHundredObjectsAreNamed() {
    String hundred = names(100);
    assertEquals(100, Uses.parse(hundred).named().size());
    Uses tooMany = Uses.parse(hundred + ", cm/one-more");
    assertEquals(List.of(), tooMany.named(), "past the cap: nothing is named, not the first hundred");
    assertEquals(1, tooMany.errors().size(), tooMany.errors().toString());
    assertTrue(tooMany.errors().get(0).contains("at most " + Uses.MAX_NAMED + " objects"), tooMany.errors().toString());
    assertEquals(100, Uses.parse(hundred + ",, ,").named().size(), "empty entries are no objects");
  }

  @Test
  void atMostSixteenKibibytes() {
    String atCap = "cm/" + "a".repeat(253) + ",";
    atCap = atCap.repeat(Uses.MAX_BYTES / atCap.length());
    atCap = atCap + " ".repeat(Uses.MAX_BYTES - atCap.length());
    assertEquals(Uses.MAX_BYTES, atCap.length());
    assertTrue(Uses.parse(atCap).errors().isEmpty(), "16 KiB is allowed");
    Uses tooLong = Uses.parse(atCap + " ");
    assertEquals(0, tooLong.named().size());
    assertTrue(tooLong.errors().get(0).contains("at most 16 KiB"), tooLong.errors().toString());
    String wide = "cm/" + "é".repeat(Uses.MAX_BYTES / 2);
    assertTrue(Uses.parse(wide).errors().get(0).contains("at most 16 KiB"), "counted in bytes (UTF-8), as the API server does");
  }

  @Test
  void anOverlongAnnotationIsOneInvalidEntryThatProtectsNothing() {
    List<Use> uses = uses(obj("y").uses(names(101)).build());
    assertEquals(1, uses.size(), "one error, not one per entry");
    assertFalse(uses.get(0).valid());
    assertTrue(uses.get(0).error().contains("names 101 objects: at most 100"), uses.get(0).error());
  }

  /** Reading a 256 KiB annotation is not splitting it: no per-entry strings, whatever its length. */
  @Test
  void anOverlongAnnotationIsNotSplit() {
    var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    String huge = "cm/x,".repeat(256 * 1024 / 5);
    String hugeButShort = "cm/x,".repeat(3000); // 15,000 bytes, 3,000 entries: too many, not too long
    long id = Thread.currentThread().getId();
    for (int warm = 0; warm < 3; warm++) {
      Uses.parse(huge);
      Uses.parse(hugeButShort);
    }
    long before = threads.getThreadAllocatedBytes(id);
    Uses a = Uses.parse(huge);
    long mid = threads.getThreadAllocatedBytes(id);
    Uses b = Uses.parse(hugeButShort);
    long after = threads.getThreadAllocatedBytes(id);
    System.out.printf("Uses.parse allocated %,d bytes for a 256 KiB annotation, %,d for 3,000 entries in 15 KB%n",
        mid - before, after - mid);
    assertTrue(!a.errors().isEmpty() && !b.errors().isEmpty());
    assertTrue(mid - before < 4096, "a 256 KiB annotation allocated " + (mid - before) + " bytes");
    assertTrue(after - mid < 4096, "3,000 entries allocated " + (after - mid) + " bytes");
  }

  private static String names(int n) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < n; i++) {
      s.append(i == 0 ? "" : ", ").append("cm/c").append(i);
    }
    return s.toString();
  }

  @Test
  void noAnnotationNamesNothing() {
    assertEquals(Uses.NONE, Uses.parse(null));
    assertEquals(Uses.NONE, Uses.parse(" "));
  }
}
