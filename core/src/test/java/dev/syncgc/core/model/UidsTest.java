package dev.syncgc.core.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class UidsTest {
  private static final String UUID_TEXT = "0f8b3c9e-1d2a-4b5c-8d6e-7f8091a2b3c4";

  @Test
  void aCanonicalUuidIsKeptAsTwoLongsAndReadBackAsGiven() {
    ObjectRef ref = new ObjectRef("v1", "ConfigMap", "ns", "a", new String(UUID_TEXT));
    assertNull(ref.opaqueUid());
    assertEquals(UUID.fromString(UUID_TEXT).getMostSignificantBits(), ref.uidHigh());
    assertEquals(UUID.fromString(UUID_TEXT).getLeastSignificantBits(), ref.uidLow());
    assertEquals(UUID_TEXT, ref.uid());
  }

  @Test
  void onlyLowerCaseEightFourFourFourTwelveHexIsCanonical() {
    assertTrue(Uids.canonical(UUID_TEXT));
    assertTrue(Uids.canonical("00000000-0000-0000-0000-000000000000"));
    assertTrue(Uids.canonical("ffffffff-ffff-ffff-ffff-ffffffffffff"));
    for (String other : List.of(UUID_TEXT.toUpperCase(), UUID_TEXT.replace('-', '_'), UUID_TEXT.substring(1),
        UUID_TEXT + "0", "0f8b3c9e1-d2a-4b5c-8d6e-7f8091a2b3c4", "0f8b3c9g-1d2a-4b5c-8d6e-7f8091a2b3c4",
        "{" + UUID_TEXT.substring(1), "", "uid-1")) {
      assertFalse(Uids.canonical(other), other);
      ObjectRef ref = new ObjectRef("v1", "ConfigMap", "ns", "a", other);
      assertEquals(other, ref.uid());
      assertEquals(other, ref.opaqueUid());
    }
  }

  @Test
  void equalUidsAreEqualReferencesWhateverTheirInstancesAndOtherFields() {
    ObjectRef a = new ObjectRef("v1", "ConfigMap", "ns", "a", new String(UUID_TEXT));
    ObjectRef b = new ObjectRef("v1", "Secret", null, "b", new String(UUID_TEXT));
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(a, new ObjectRef("v1", "ConfigMap", "ns", "a", UUID_TEXT.toUpperCase()));
    OwnerLink l = new OwnerLink(new String(UUID_TEXT), "v1", "ConfigMap", "a");
    OwnerLink m = new OwnerLink(new String(UUID_TEXT), "v1", "ConfigMap", "a");
    assertEquals(l, m);
    assertEquals(l.hashCode(), m.hashCode());
    assertNotEquals(l, new OwnerLink(UUID_TEXT, "v1", "ConfigMap", "b"));
    assertNotEquals(l, new OwnerLink(UUID_TEXT.toUpperCase(), "v1", "ConfigMap", "a"));
    assertEquals("OwnerLink[uid=" + UUID_TEXT + ", apiVersion=v1, kind=ConfigMap, name=a]", l.toString());
  }
}
