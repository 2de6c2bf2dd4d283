package dev.syncgc.e2e.soak;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The operator's dependency graph by identity, read from a heap dump of the process ({@code jcmd
 * <pid> GC.heap_dump}, live objects only): every observed node of the one live
 * {@code DependencyGraph}, as uid to the uids of the owners its object names. The operator exposes
 * its graph only as counts ({@code syncgc_graph_objects}); this reads what it holds without asking
 * it, and without any of its code: an HPROF reader that follows fields by name (DependencyGraph
 * {@code nodes}, a NodeTable whose {@code nodes} UidMap holds its Nodes in {@code values}, a Node's
 * {@code meta}, ObjectMetadata {@code ref}/{@code owners}, ObjectRef and
 * OwnerLink {@code uid}). If the operator's layout changes, {@link #read} says which field it missed.
 */
final class HeapGraph {
  static final String GRAPH = "dev.syncgc.core.graph.DependencyGraph";
  static final String OWNER_LINK = "dev.syncgc.core.model.OwnerLink";

  private static final int OBJECT = 2;

  private record ClassInfo(long superId, List<String> fieldNames, List<Integer> fieldTypes) {}

  private final MappedByteBuffer b;
  private int idSize;
  private final Map<Long, String> strings = new HashMap<>();
  private final Map<Long, String> classNames = new HashMap<>();
  private final Map<Long, ClassInfo> classes = new HashMap<>();
  /** Object id to the position of its heap dump sub-record (instances and arrays). */
  private final Map<Long, Integer> objects = new HashMap<>();
  private final List<Long> graphs = new ArrayList<>();

  private HeapGraph(MappedByteBuffer b) {
    this.b = b;
  }

  /** uid to owner uids of every object the live graph has observed (virtual nodes left out). */
  static Map<String, Set<String>> read(Path hprof) throws IOException {
    try (FileChannel ch = FileChannel.open(hprof, StandardOpenOption.READ)) {
      HeapGraph h = new HeapGraph(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
      h.parse();
      return h.graph();
    }
  }

  private void parse() {
    while (b.get() != 0) {
      // "JAVA PROFILE 1.0.2"
    }
    idSize = b.getInt();
    b.getLong();
    while (b.hasRemaining()) {
      int tag = b.get() & 0xff;
      b.getInt();
      long length = Integer.toUnsignedLong(b.getInt());
      int end = (int) (b.position() + length);
      switch (tag) {
        case 0x01 -> {
          long id = id();
          byte[] text = new byte[end - b.position()];
          b.get(text);
          strings.put(id, new String(text, StandardCharsets.UTF_8));
        }
        case 0x02 -> {
          b.getInt();
          long classId = id();
          b.getInt();
          classNames.put(classId, strings.getOrDefault(id(), "?").replace('/', '.'));
        }
        case 0x0c, 0x1c -> heapDump(end);
        default -> { }
      }
      b.position(end);
    }
    long graphClass = classNames.entrySet().stream().filter(e -> e.getValue().equals(GRAPH)).map(Map.Entry::getKey)
        .findFirst().orElse(-1L);
    for (Map.Entry<Long, Integer> o : objects.entrySet()) {
      if ((b.get(o.getValue()) & 0xff) == 0x21 && classOf(o.getKey()) == graphClass) {
        graphs.add(o.getKey());
      }
    }
  }

  private void heapDump(int end) {
    while (b.position() < end) {
      int at = b.position();
      int sub = b.get() & 0xff;
      switch (sub) {
        case 0xff, 0x05, 0x07 -> id();
        case 0x01 -> skip(2 * idSize);
        case 0x02, 0x03 -> skip(idSize + 8);
        case 0x04, 0x06 -> skip(idSize + 4);
        case 0x08 -> skip(idSize + 8);
        case 0x20 -> classDump();
        case 0x21 -> {
          objects.put(id(), at);
          b.getInt();
          id();
          skip(b.getInt());
        }
        case 0x22 -> {
          objects.put(id(), at);
          b.getInt();
          int n = b.getInt();
          id();
          skip((long) n * idSize);
        }
        case 0x23 -> {
          objects.put(id(), at);
          b.getInt();
          int n = b.getInt();
          int type = b.get();
          skip((long) n * size(type));
        }
        default -> throw new IllegalStateException("heap dump sub-record 0x" + Integer.toHexString(sub) + " at " + at);
      }
    }
  }

  private void classDump() {
    long id = id();
    b.getInt();
    long superId = id();
    skip(5L * idSize);
    b.getInt();
    int constants = b.getShort() & 0xffff;
    for (int i = 0; i < constants; i++) {
      b.getShort();
      skip(size(b.get()));
    }
    int statics = b.getShort() & 0xffff;
    for (int i = 0; i < statics; i++) {
      id();
      skip(size(b.get()));
    }
    int fields = b.getShort() & 0xffff;
    List<String> names = new ArrayList<>();
    List<Integer> types = new ArrayList<>();
    for (int i = 0; i < fields; i++) {
      names.add(strings.getOrDefault(id(), "?"));
      types.add((int) b.get());
    }
    classes.put(id, new ClassInfo(superId, names, types));
  }

  private Map<String, Set<String>> graph() {
    if (graphs.size() != 1) {
      throw new IllegalStateException(graphs.size() + " live " + GRAPH + " instances in the heap dump, not 1");
    }
    Map<String, Set<String>> out = new TreeMap<>();
    for (long node : arrayElements(ref(ref(ref(graphs.get(0), "nodes"), "nodes"), "values"))) {
      if (node == 0) {
        continue; // an empty slot of the open-addressing table
      }
      long meta = ref(node, "meta");
      if (meta == 0) {
        continue; // a virtual node: an owner named but not observed
      }
      Set<String> owners = new LinkedHashSet<>();
      for (long link : elements(ref(meta, "owners"), OWNER_LINK)) {
        owners.add(string(ref(link, "uid")));
      }
      out.put(string(ref(ref(meta, "ref"), "uid")), owners);
    }
    return out;
  }

  /** The instances of {@code className} a list holds (any java.util list: List12, ListN, ArrayList). */
  private List<Long> elements(long list, String className) {
    List<Long> out = new ArrayList<>();
    if (list == 0) {
      return out;
    }
    for (Object v : fields(list).values()) {
      if (v instanceof Long id && id != 0 && objects.containsKey(id)) {
        if ((b.get(objects.get(id)) & 0xff) == 0x22) {
          for (long e : arrayElements(id)) {
            if (e != 0 && className(e).equals(className)) {
              out.add(e);
            }
          }
        } else if (className(id).equals(className)) {
          out.add(id);
        }
      }
    }
    return out;
  }

  private long ref(long object, String field) {
    Map<String, Object> f = fields(object);
    if (!f.containsKey(field)) {
      throw new IllegalStateException(className(object) + " has no field " + field + " (fields " + f.keySet()
          + "): the operator's graph changed shape, update HeapGraph");
    }
    return (Long) f.get(field);
  }

  private String string(long object) {
    Map<String, Object> f = fields(object);
    long value = (Long) f.get("value");
    byte coder = f.get("coder") instanceof Byte c ? c : 0;
    int at = objects.get(value);
    b.position(at + 1 + idSize + 4);
    int n = b.getInt();
    b.get();
    byte[] bytes = new byte[n];
    b.get(bytes);
    return new String(bytes, coder == 0 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_16LE);
  }

  private List<Long> arrayElements(long array) {
    b.position(objects.get(array) + 1 + idSize + 4);
    int n = b.getInt();
    id();
    List<Long> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(id());
    }
    return out;
  }

  private long classOf(long object) {
    b.position(objects.get(object) + 1 + idSize + 4);
    return id();
  }

  private String className(long object) {
    Integer at = objects.get(object);
    if (at == null || (b.get(at) & 0xff) != 0x21) {
      return "";
    }
    return classNames.getOrDefault(classOf(object), "?");
  }

  /** An instance's fields by name, its own class's first and then its superclasses' (ids as Long). */
  private Map<String, Object> fields(long object) {
    Integer at = objects.get(object);
    if (at == null || (b.get(at) & 0xff) != 0x21) {
      throw new IllegalStateException("object 0x" + Long.toHexString(object) + " is not an instance in the dump");
    }
    b.position(at + 1 + idSize + 4);
    long classId = id();
    b.getInt();
    Map<String, Object> out = new HashMap<>();
    for (long c = classId; c != 0 && classes.containsKey(c); c = classes.get(c).superId()) {
      ClassInfo info = classes.get(c);
      for (int i = 0; i < info.fieldNames().size(); i++) {
        Object v = switch (info.fieldTypes().get(i)) {
          case OBJECT -> id();
          case 4, 8 -> b.get();
          case 5, 9 -> b.getShort();
          case 6, 10 -> b.getInt();
          default -> b.getLong();
        };
        out.putIfAbsent(info.fieldNames().get(i), v);
      }
    }
    return out;
  }

  private long id() {
    return idSize == 8 ? b.getLong() : Integer.toUnsignedLong(b.getInt());
  }

  private void skip(long n) {
    b.position((int) (b.position() + n));
  }

  private int size(int type) {
    return switch (type) {
      case OBJECT -> idSize;
      case 4, 8 -> 1;
      case 5, 9 -> 2;
      case 6, 10 -> 4;
      case 7, 11 -> 8;
      default -> throw new IllegalStateException("basic type " + type);
    };
  }
}
