package dev.syncgc.core.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A uid as the graph keeps it: a canonical UUID (lower-case 8-4-4-4-12 hex, what the API server
 * makes) as its 128 bits in two longs, 16 bytes instead of an 80-byte String; any other uid (the API
 * promises only an opaque string) as the string itself. Holders keep {@code (high, low, opaque)}:
 * {@code opaque} is null for a canonical UUID, else the uid, with {@code high} and {@code low} zero.
 */
public final class Uids {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  /** Each character's value as a lower-case hex digit, -1 if it is none. */
  private static final byte[] DIGIT = new byte[128];

  static {
    Arrays.fill(DIGIT, (byte) -1);
    for (int i = 0; i < HEX.length; i++) {
      DIGIT[HEX[i]] = (byte) i;
    }
  }

  private Uids() {}

  /** Whether {@code uid} is a canonical UUID, so that {@link #format} gives back the same text. */
  public static boolean canonical(String uid) {
    return uid.length() == 36 && uid.charAt(8) == '-' && uid.charAt(13) == '-' && uid.charAt(18) == '-'
        && uid.charAt(23) == '-'
        && (digitCheck(uid, 0, 8) | digitCheck(uid, 9, 13) | digitCheck(uid, 14, 18) | digitCheck(uid, 19, 23)
            | digitCheck(uid, 24, 36)) >= 0;
  }

  /** Negative unless every character in [from, to) is a lower-case hex digit. */
  private static int digitCheck(String text, int from, int to) {
    int invalid = 0; // one branch for the run, not one per character
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      invalid |= c < 128 ? DIGIT[c] : -1;
    }
    return invalid;
  }

  /** The first 64 bits of a canonical UUID. */
  public static long high(String canonical) {
    return digits(canonical, 0, 8) << 32 | digits(canonical, 9, 13) << 16 | digits(canonical, 14, 18);
  }

  /** The last 64 bits of a canonical UUID. */
  public static long low(String canonical) {
    return digits(canonical, 19, 23) << 48 | digits(canonical, 24, 36);
  }

  /** The uid as text: {@code opaque}, or the canonical UUID of {@code high} and {@code low}. */
  public static String format(long high, long low, String opaque) {
    if (opaque != null) {
      return opaque;
    }
    byte[] text = new byte[36];
    writeDigits(text, 0, high >>> 32, 8);
    text[8] = '-';
    writeDigits(text, 9, high >>> 16, 4);
    text[13] = '-';
    writeDigits(text, 14, high, 4);
    text[18] = '-';
    writeDigits(text, 19, low >>> 48, 4);
    text[23] = '-';
    writeDigits(text, 24, low, 12);
    return new String(text, StandardCharsets.ISO_8859_1);
  }

  /** A hash of the uid, spread over every bit (probe tables take the low bits). */
  public static int hash(long high, long low, String opaque) {
    long h = opaque != null ? opaque.hashCode() : high * 0x9E3779B97F4A7C15L + low;
    h *= 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** Whether two triples name the same uid. */
  public static boolean same(long high, long low, String opaque, long otherHigh, long otherLow, String otherOpaque) {
    return opaque == null ? otherOpaque == null && high == otherHigh && low == otherLow : opaque.equals(otherOpaque);
  }

  private static long digits(String text, int from, int to) {
    long bits = 0;
    for (int i = from; i < to; i++) {
      bits = bits << 4 | DIGIT[text.charAt(i)];
    }
    return bits;
  }

  private static void writeDigits(byte[] text, int at, long bits, int digits) {
    for (int i = digits - 1; i >= 0; i--) {
      text[at + i] = (byte) HEX[(int) (bits & 0xF)];
      bits >>>= 4;
    }
  }
}
