package io.ext4j.fs.extent;

import io.ext4j.fs.format.Extent;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.alloc.BlockAllocator;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.RawInode;
import io.ext4j.fs.inode.Inode;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A file's extent tree: lookups, and one mutation — {@link #replace} — that every write,
 * conversion, punch and truncate is expressed in.
 *
 * <h2>Algorithm</h2>
 * {@code replace(start, end, new)} descends from the root into every child whose key range meets
 * [start, end), rewrites the leaves there (cutting the extents that straddle the edges, inserting
 * the new ones, merging neighbours that continue each other), and writes each rewritten node back,
 * split into several when it overflows or removed when it empties; each parent then rewrites its
 * entries for the children that changed, with keys equal to each child's first key. The root lives
 * in i_block (4 entries): when it overflows its entries move into new blocks and the tree grows a
 * level; when a tree of depth 1 holds at most 4 extents they move back into the root.
 *
 * <h2>Shape</h2>
 * e2fsck -f reports (even under -n) a tree that "could be narrower" — a level with more than a
 * block's worth of free entries, counting a non-full tree block as holding one fewer — or "could be
 * shorter" — a level with fewer entries than a level above could hold. After a change that altered
 * the tree's structure the levels are measured, and a tree in either state is rebuilt packed (every
 * node one entry short of full, the last of each level holding the rest, the minimum depth), reusing
 * its blocks. Appends never trigger it: splitting the last leaf when appending leaves the old leaf
 * full and the new one nearly empty, which is the slack e2fsck allows.
 *
 * <h2>Locks and durability</h2>
 * Callers hold the inode's {@code map} lock (shared to look up, exclusive to change) and, to change,
 * a Tx; every node written is part of that Tx, and the root and i_blocks are changed in the inode's
 * bytes, which the caller writes to the inode table in the same Tx.
 */
public final class ExtentTree {
  private final FsLayout lay;
  private final MetaStore meta;
  private final BlockAllocator alloc;
  private final int perBlock;
  private final DecodedNodes decoded;

  public ExtentTree(FsLayout lay, MetaStore meta, BlockAllocator alloc) {
    this.lay = lay;
    this.meta = meta;
    this.alloc = alloc;
    this.perBlock = ExtentNode.blockMax(lay.blockSize());
    this.decoded = new DecodedNodes(lay.blockSize());
  }

  /** Writes an empty root into {@code raw}'s i_block. */
  public static void initRoot(RawInode raw) {
    byte[] ib = new byte[RawInode.I_BLOCK_SIZE];
    ExtentNode.emptyLeaf().encode(ib, 0, ib.length, ExtentNode.ROOT_MAX, null);
    raw.iBlock(ib);
  }

  // ================================================================ reading

  /** The extent containing {@code lblk}, or the first one after it, or null. O(depth) blocks read. */
  public Extent find(Inode inode, long lblk) throws IOException {
    Ctx c = new Ctx(inode);
    return findFrom(c, c.root(), lblk);
  }

  private Extent findFrom(Ctx c, ExtentNode node, long lblk) throws IOException {
    if (node.depth() == 0) {
      // decode keeps a leaf sorted and non-overlapping: the extent starting at or before lblk if it
      // reaches past lblk, else the next one
      int n = node.count();
      if (n == 0) {
        return null;
      }
      int i = childFor(node, lblk);
      if (node.keys()[i] + node.lengths()[i] <= lblk) {
        i++;
      }
      return i < n ? extent(node, i) : null;
    }
    for (int i = childFor(node, lblk); i < node.count(); i++) {
      long block = node.values()[i];
      ExtentNode child = c.read(block, node.depth() - 1);
      if (child.count() == 0) {
        throw c.corrupt(block, "empty extent tree block");
      }
      Extent e = findFrom(c, child, lblk);
      if (e != null) {
        return e; // a later child's first extent when lblk is past everything in this one
      }
    }
    return null;
  }

  /** Every extent that overlaps [from, to), in order. */
  public List<Extent> extents(Inode inode, long from, long to) throws IOException {
    Ctx c = new Ctx(inode);
    List<Extent> out = new ArrayList<>();
    collect(c, c.root(), from, to, out);
    return out;
  }

  private void collect(Ctx c, ExtentNode node, long from, long to, List<Extent> out) throws IOException {
    if (node.depth() == 0) {
      for (int i = 0; i < node.count(); i++) {
        Extent e = extent(node, i);
        if (e.end() > from && e.lblk() < to) {
          out.add(e);
        }
      }
      return;
    }
    int first = childFor(node, from);
    for (int i = first; i < node.count() && node.keys()[i] < to; i++) {
      long child = node.values()[i];
      ExtentNode n = c.read(child, node.depth() - 1);
      if (n.count() == 0) {
        throw c.corrupt(child, "empty extent tree block");
      }
      collect(c, n, from, to, out);
    }
  }

  /** The tree's depth (0: the extents are in the inode). */
  public int depth(Inode inode) throws IOException {
    return new Ctx(inode).root().depth();
  }

  /** Every tree block (not data), for the checker, i_blocks and freeing. */
  public List<Long> treeBlocks(Inode inode) throws IOException {
    Ctx c = new Ctx(inode);
    List<Long> out = new ArrayList<>();
    walkBlocks(c, c.root(), out);
    return out;
  }

  private void walkBlocks(Ctx c, ExtentNode node, List<Long> out) throws IOException {
    if (node.depth() == 0) {
      return;
    }
    for (int i = 0; i < node.count(); i++) {
      long child = node.values()[i];
      out.add(child);
      walkBlocks(c, c.read(child, node.depth() - 1), out);
    }
  }

  /** A worst-case credit count for a {@link #replace} that inserts up to {@code extents} extents. */
  public int credits(Inode inode, int extents) throws IOException {
    int depth = depth(inode);
    int levels = depth + 2;
    return levels * (2 + 2 * extents) + 8;
  }

  // ================================================================ changing

  /**
   * Replaces every mapping in [start, end) with {@code replacement} (sorted, non-overlapping, each
   * inside [start, end)) and returns the mappings removed (whose blocks the caller frees, or keeps
   * when it re-maps them, as a conversion does).
   */
  public List<Extent> replace(Tx tx, Inode inode, long start, long end, List<Extent> replacement) throws IOException {
    assert inode.map.isWriteLockedByCurrentThread();
    for (Extent e : replacement) {
      if (e.lblk() < start || e.end() > end) {
        throw new IllegalArgumentException("replacement " + e + " outside [" + start + ", " + end + ")");
      }
    }
    if (replacement.size() == 1 && appended(tx, inode, start, replacement.getFirst())) {
      return List.of();
    }
    // Pass 1, writing nothing: how many new tree blocks the change needs. They are allocated before
    // any node changes, so running out of space fails the call cleanly (ENOSPC, nothing changed).
    Ctx dry = new Ctx(inode);
    dry.dry = true;
    apply(dry, start, end, replacement);
    Ctx c = new Ctx(inode);
    c.tx = tx;
    c.reserve(dry.newBlocks);
    apply(c, start, end, replacement);
    c.finish();
    return c.removed;
  }

  /**
   * The append fast path: when [start, …) lies past the last mapped block and the tree's rightmost
   * leaf can take {@code e} — merged into its last extent, or as one more entry — changes that one
   * node in place and returns true; otherwise changes nothing and returns false (the general path
   * then does it). Nothing is removed, no block is allocated or freed, and no index key changes
   * (the leaf's first key stays), so the tree ends as {@link #apply} would leave it, without
   * rebuilding every extent of the leaf twice.
   */
  private boolean appended(Tx tx, Inode inode, long start, Extent e) throws IOException {
    Ctx c = new Ctx(inode);
    c.tx = tx;
    ExtentNode node = c.root();
    long block = 0; // 0: the leaf is the root
    while (node.depth() > 0) {
      if (node.count() == 0 || childFor(node, start) != node.count() - 1) {
        return false;
      }
      block = node.values()[node.count() - 1];
      node = c.read(block, node.depth() - 1);
      if (node.count() == 0) {
        throw c.corrupt(block, "empty extent tree block");
      }
    }
    int n = node.count();
    if (n == 0) {
      return false;
    }
    Extent last = extent(node, n - 1);
    if (last.end() > start) { // e lies in [start, end): replace checked it
      return false;
    }
    ExtentNode changed;
    if (last.mergesWith(e)) {
      int[] lengths = node.lengths().clone();
      lengths[n - 1] += e.len();
      changed = new ExtentNode(0, node.keys(), node.values(), lengths, node.unwritten());
    } else if (n < (block == 0 ? ExtentNode.ROOT_MAX : perBlock)) {
      long[] keys = java.util.Arrays.copyOf(node.keys(), n + 1);
      long[] values = java.util.Arrays.copyOf(node.values(), n + 1);
      int[] lengths = java.util.Arrays.copyOf(node.lengths(), n + 1);
      boolean[] unwritten = java.util.Arrays.copyOf(node.unwritten(), n + 1);
      keys[n] = e.lblk();
      values[n] = e.pblk();
      lengths[n] = e.len();
      unwritten[n] = e.unwritten();
      changed = new ExtentNode(0, keys, values, lengths, unwritten);
    } else {
      return false;
    }
    if (block == 0) {
      c.writeRoot(changed);
    } else {
      c.writeNodes(block, n, 0, List.of(changed)); // into the same block; it lost no entry
    }
    return true;
  }

  private void apply(Ctx c, long start, long end, List<Extent> replacement) throws IOException {
    ExtentNode root = c.root();
    List<long[]> entries; // the new entries of the root's level
    int childDepth;
    if (root.depth() == 0 || root.count() == 0) {
      // an index root with no entries maps nothing: it changes as an empty leaf would (e2fsck only
      // remarks that such a tree "could be shorter")
      List<Extent> leaf = applyLeaf(root.depth() == 0 ? root : ExtentNode.emptyLeaf(), start, end, replacement, c.removed);
      if (leaf.size() <= ExtentNode.ROOT_MAX) {
        c.writeRoot(leafNode(leaf));
        return;
      }
      entries = c.writeNodes(0, 0, 0, chunk(leaf, perBlock));
      childDepth = 0;
    } else {
      entries = rewriteChildren(c, root, start, end, replacement);
      childDepth = root.depth() - 1;
    }
    buildRoot(c, entries, childDepth);
  }

  /** Rewrites the children of index node {@code node} that [start, end) or the replacement touch; returns its new entry list. */
  private List<long[]> rewriteChildren(Ctx c, ExtentNode node, long start, long end, List<Extent> replacement) throws IOException {
    int n = node.count();
    int i0 = childFor(node, start);
    int i1 = childFor(node, end - 1);
    for (Extent e : replacement) {
      i0 = Math.min(i0, childFor(node, e.lblk()));
      i1 = Math.max(i1, childFor(node, e.lblk()));
    }
    List<long[]> out = new ArrayList<>();
    for (int i = 0; i < i0; i++) {
      out.add(new long[] {node.keys()[i], node.values()[i]});
    }
    for (int i = i0; i <= i1; i++) {
      long lo = i == i0 ? Long.MIN_VALUE : node.keys()[i];
      long hi = i == i1 || i + 1 >= n ? Long.MAX_VALUE : node.keys()[i + 1];
      List<Extent> sub = new ArrayList<>();
      for (Extent e : replacement) {
        if (e.lblk() >= lo && e.lblk() < hi) {
          sub.add(e);
        }
      }
      long block = node.values()[i];
      ExtentNode child = c.read(block, node.depth() - 1);
      if (child.count() == 0) {
        throw c.corrupt(block, "empty extent tree block");
      }
      if (child.depth() == 0) {
        List<Extent> leaf = applyLeaf(child, start, end, sub, c.removed);
        out.addAll(c.writeNodes(block, child.count(), 0, chunk(leaf, perBlock)));
      } else {
        List<long[]> entries = rewriteChildren(c, child, start, end, sub);
        out.addAll(c.writeNodes(block, child.count(), child.depth(), chunkRows(entries, perBlock)));
      }
    }
    for (int i = i1 + 1; i < n; i++) {
      out.add(new long[] {node.keys()[i], node.values()[i]});
    }
    return out;
  }

  /** Makes the root over {@code entries} (children of depth {@code childDepth}), growing or shrinking the tree. */
  private void buildRoot(Ctx c, List<long[]> entries, int childDepth) throws IOException {
    int depth = childDepth + 1;
    while (entries.size() > ExtentNode.ROOT_MAX) {
      entries = c.writeNodes(0, 0, depth, chunkRows(entries, perBlock));
      depth++;
      c.structural = true;
    }
    if (entries.isEmpty()) {
      c.writeRoot(ExtentNode.emptyLeaf());
      return;
    }
    c.writeRoot(ExtentNode.index(depth, entries));
  }

  /** Applies [start, end) := replacement to a leaf's extents; adds what is cut out to {@code removed}. */
  static List<Extent> applyLeaf(ExtentNode leaf, long start, long end, List<Extent> replacement, List<Extent> removed) {
    List<Extent> out = new ArrayList<>(leaf.count() + replacement.size() + 1);
    List<Extent> add = new ArrayList<>(replacement);
    for (int i = 0; i < leaf.count(); i++) {
      Extent e = extent(leaf, i);
      if (e.end() <= start || e.lblk() >= end) {
        out.add(e);
        continue;
      }
      if (e.lblk() < start) {
        out.add(e.slice(e.lblk(), start));
      }
      removed.add(e.slice(start, end));
      if (e.end() > end) {
        out.add(e.slice(end, e.end()));
      }
    }
    out.addAll(add);
    out.sort((a, b) -> Long.compare(a.lblk(), b.lblk()));
    List<Extent> merged = new ArrayList<>(out.size());
    for (Extent e : out) {
      if (!merged.isEmpty()) {
        Extent last = merged.getLast();
        if (last.end() > e.lblk()) {
          throw new IllegalStateException("overlapping extents " + last + " and " + e);
        }
        if (last.mergesWith(e)) {
          merged.set(merged.size() - 1, last.merge(e));
          continue;
        }
      }
      merged.add(e);
    }
    return merged;
  }

  // ================================================================ shape

  /** Per-level entries and capacities as e2fsck counts them (a non-full tree block counts one fewer). */
  private long[][] levelStats(Ctx c) throws IOException {
    return levelStats(c.root(), c::read, perBlock);
  }

  /** A tree block's node, as {@link Ctx#read} gives it. */
  interface NodeReader {
    ExtentNode read(long block, int expectedDepth) throws IOException;
  }

  /** {@link #levelStats(Ctx)} of the tree under {@code root}. */
  static long[][] levelStats(ExtentNode root, NodeReader reader, int perBlock) throws IOException {
    int levels = root.depth() + 1;
    long[][] stats = new long[levels][2];
    stats[0][0] = root.count();
    stats[0][1] = ExtentNode.ROOT_MAX;
    List<ExtentNode> level = List.of(root);
    for (int l = 1; l < levels; l++) {
      List<ExtentNode> next = new ArrayList<>();
      for (ExtentNode n : level) {
        for (int i = 0; i < n.count(); i++) {
          ExtentNode child = reader.read(n.values()[i], n.depth() - 1);
          next.add(child);
          stats[l][0] += child.count();
          stats[l][1] += child.count() < perBlock ? perBlock - 1 : perBlock;
        }
      }
      level = next;
    }
    return stats;
  }

  /** Whether e2fsck would call the tree narrowable or collapsible. */
  private boolean misshapen(long[][] stats) {
    return misshapen(stats, perBlock);
  }

  /** {@link #misshapen(long[][])} with {@code perBlock} entries to a tree block. */
  static boolean misshapen(long[][] stats, int perBlock) {
    for (int i = 0; i < stats.length; i++) {
      if (stats[i][1] - stats[i][0] > perBlock) {
        return true;
      }
      for (int j = 0; j < i; j++) {
        if (stats[i][0] < stats[j][1]) {
          return true;
        }
      }
    }
    return false;
  }

  /** Rebuilds the tree packed, reusing its blocks (see the class doc). Skipped if the Tx cannot get the credits. */
  private void rebuild(Ctx c) throws IOException {
    List<Long> old = new ArrayList<>();
    walkBlocks(c, c.root(), old);
    if (!c.tx.ensureCredits(old.size() + 8)) {
      return; // valid as it is, only not as compact as e2fsck would like
    }
    List<Extent> all = new ArrayList<>();
    collect(c, c.root(), 0, Long.MAX_VALUE, all);
    c.reuse.addAll(old);
    if (all.size() <= ExtentNode.ROOT_MAX) {
      c.writeRoot(leafNode(all));
    } else {
      List<long[]> entries = c.writeNodes(0, 0, 0, chunkEvenly(all, rebuildLeaves(all.size(), old.size(), perBlock)));
      int depth = 1;
      while (entries.size() > ExtentNode.ROOT_MAX) {
        entries = c.writeNodes(0, 0, depth, chunkRows(entries, perBlock - 1));
        depth++;
      }
      c.writeRoot(ExtentNode.index(depth, entries));
    }
    for (long b : c.reuse) {
      c.freeTreeBlock(b);
    }
    c.reuse.clear();
  }

  /**
   * How many leaves a rebuild spreads {@code n} extents over: the most that keep the tree as e2fsck
   * likes it ({@link #misshapen} of the packed shape, computed by {@link #packedStats}) within the
   * {@code blocks} tree blocks the old tree had, so the free entries the rules allow at the leaf
   * level are spread over the leaves for inserts to use. Leaves packed full would leave the next
   * two splits anywhere misshapen again, so random writes into a fragmented file would rebuild the
   * whole tree every few writes.
   */
  static int rebuildLeaves(int n, int blocks, int perBlock) {
    int min = Math.ceilDiv(n, perBlock - 1);
    int max = (n + perBlock) / (perBlock - 1);
    for (int l = max; l > min; l--) {
      long[][] stats = packedStats(n, l, perBlock);
      if (stats != null && !misshapen(stats, perBlock) && treeBlocks(stats) <= blocks) {
        return l;
      }
    }
    return min;
  }

  /**
   * The per-level {entries, capacity as e2fsck counts it} ({@link #levelStats}'s rows) of the tree a
   * rebuild writes for {@code n} extents over {@code leaves} leaves ({@link #chunkEvenly}, then
   * index levels of {@code perBlock - 1} rows under the root), root level first. Null when a leaf
   * would overflow.
   */
  static long[][] packedStats(int n, int leaves, int perBlock) {
    int q = n / leaves;
    int r = n % leaves;
    if (q == 0 || q + (r > 0 ? 1 : 0) > perBlock) {
      return null;
    }
    List<long[]> up = new ArrayList<>(); // leaf level first
    long cap = (long) r * (q + 1 < perBlock ? perBlock - 1 : perBlock) + (long) (leaves - r) * (q < perBlock ? perBlock - 1 : perBlock);
    up.add(new long[] {n, cap});
    long rows = leaves;
    while (rows > ExtentNode.ROOT_MAX) {
      long nodes = Math.ceilDiv(rows, perBlock - 1);
      up.add(new long[] {rows, nodes * (perBlock - 1)}); // every index node holds fewer than perBlock
      rows = nodes;
    }
    up.add(new long[] {rows, ExtentNode.ROOT_MAX});
    java.util.Collections.reverse(up);
    return up.toArray(long[][]::new);
  }

  /**
   * The tree blocks (leaves and index nodes, not the root) of a tree with these {@link #levelStats}:
   * each level's nodes are the entries of the level above, so the entries of every level but the
   * leaves.
   */
  static long treeBlocks(long[][] stats) {
    long blocks = 0;
    for (int l = 0; l < stats.length - 1; l++) {
      blocks += stats[l][0];
    }
    return blocks;
  }

  /** {@code extents} in {@code leaves} leaves whose counts differ by at most one. */
  static List<ExtentNode> chunkEvenly(List<Extent> extents, int leaves) {
    List<ExtentNode> out = new ArrayList<>(leaves);
    int q = extents.size() / leaves;
    int r = extents.size() % leaves;
    int at = 0;
    for (int i = 0; i < leaves; i++) {
      int size = q + (i < r ? 1 : 0);
      out.add(leafNode(extents.subList(at, at + size)));
      at += size;
    }
    return out;
  }

  // ================================================================ helpers

  private static Extent extent(ExtentNode leaf, int i) {
    return new Extent(leaf.keys()[i], leaf.values()[i], leaf.lengths()[i], leaf.unwritten()[i]);
  }

  /** The entry of index node {@code node} whose subtree holds {@code lblk}: the last key ≤ lblk, or the first. */
  static int childFor(ExtentNode node, long lblk) {
    long[] k = node.keys();
    int lo = 0;
    int hi = k.length - 1;
    int found = 0;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (k[mid] <= lblk) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }

  private static ExtentNode leafNode(List<Extent> extents) {
    int n = extents.size();
    long[] keys = new long[n];
    long[] values = new long[n];
    int[] lengths = new int[n];
    boolean[] unwritten = new boolean[n];
    int i = 0;
    for (Extent e : extents) { // straight into the node's arrays: a row per extent cost more than the rest
      keys[i] = e.lblk();
      values[i] = e.pblk();
      lengths[i] = e.len();
      unwritten[i] = e.unwritten();
      i++;
    }
    return new ExtentNode(0, keys, values, lengths, unwritten);
  }

  private static List<ExtentNode> chunk(List<Extent> extents, int size) {
    List<ExtentNode> out = new ArrayList<>();
    for (int i = 0; i < extents.size(); i += size) {
      out.add(leafNode(extents.subList(i, Math.min(extents.size(), i + size))));
    }
    return out;
  }

  /** Index rows chunked; depth is set by the writer. */
  static List<ExtentNode> chunkRows(List<long[]> rows, int size) {
    List<ExtentNode> out = new ArrayList<>();
    for (int i = 0; i < rows.size(); i += size) {
      out.add(ExtentNode.index(1, rows.subList(i, Math.min(rows.size(), i + size))));
    }
    return out;
  }

  /** The state of one operation on one inode's tree. */
  private final class Ctx {
    final Inode inode;
    final int seed; // ino_seed for tree-block checksums
    Tx tx;
    final List<Extent> removed = new ArrayList<>();
    final List<Long> reuse = new ArrayList<>(); // blocks a rebuild may write into before allocating
    boolean structural; // a node was added, removed, or lost entries
    long blocksDelta; // tree blocks allocated minus freed, for i_blocks
    boolean dry; // pass 1: count, write nothing
    int newBlocks; // pass 1: new tree blocks taken
    final List<Long> reserved = new ArrayList<>(); // allocated ahead of the change for its new blocks

    Ctx(Inode inode) {
      this.inode = inode;
      this.seed = RawInode.inodeSeed(lay.checksumSeed(), inode.ino, inode.generation());
    }

    ExtentNode root() throws IOException {
      byte[] ib;
      inode.fields.lock();
      try {
        ib = inode.raw().iBlock();
      } finally {
        inode.fields.unlock();
      }
      ExtentNode root;
      try {
        root = ExtentNode.decode(ib, 0, ib.length, ExtentNode.ROOT_MAX, null);
      } catch (ExtentNode.Malformed m) {
        throw Ext4Exception.corrupted(lay.name(), inode.ino, "extent tree root in the inode: " + m.getMessage());
      }
      String bad = pointsAway(root);
      if (bad != null) {
        throw Ext4Exception.corrupted(lay.name(), inode.ino, "extent tree root in the inode: " + bad);
      }
      return root;
    }

    /**
     * What is wrong with a node's block numbers, or null: every extent and child must lie inside
     * the filesystem and clear of group metadata (the kernel's ext4_valid_extent checks).
     */
    String pointsAway(ExtentNode n) {
      for (int i = 0; i < n.count(); i++) {
        long len = n.depth() == 0 ? n.lengths()[i] : 1;
        if (n.depth() == 0 && n.keys()[i] + len > 1L << 32) {
          return "extent " + i + " covers logical blocks " + n.keys()[i] + "+" + len + ", past the 2^32 a file can have";
        }
        if (!alloc.validFileBlocks(n.values()[i], len)) {
          return (n.depth() == 0 ? "extent " + i + " maps blocks " : "index entry " + i + " points at block ") + n.values()[i]
              + (len > 1 ? "+" + len : "") + ", outside the filesystem or inside its metadata";
        }
      }
      return null;
    }

    ExtentNode read(long block, int expectedDepth) throws IOException {
      if (block < lay.firstDataBlock() || block >= lay.blocksCount()) {
        throw corrupt(block, "extent tree block outside the filesystem");
      }
      try (Buf b = meta.read(block)) {
        ExtentNode n = decoded.get(block, seed, b.array());
        boolean fresh = n == null;
        if (fresh) {
          n = ExtentNode.decode(b.array(), 0, lay.blockSize(), perBlock, lay.metadataCsum() ? seed : null);
        }
        if (n.depth() != expectedDepth) {
          throw corrupt(block, "extent tree block has depth " + n.depth() + ", expected " + expectedDepth);
        }
        if (fresh) {
          String bad = pointsAway(n);
          if (bad != null) {
            throw corrupt(block, bad);
          }
          decoded.put(block, seed, b.array(), n);
        }
        return n;
      } catch (ExtentNode.Malformed m) {
        throw corrupt(block, m.getMessage());
      }
    }

    Ext4Exception corrupt(long block, String what) {
      return Ext4Exception.corrupted(lay.name(), inode.ino, "extent tree block " + block + ": " + what);
    }

    /** Allocates {@code n} tree blocks ahead (all or none: ENOSPC frees what it got). */
    void reserve(int n) throws IOException {
      long goal = lay.groupFirstBlock(lay.groupOfInode(inode.ino));
      try {
        while (reserved.size() < n) {
          BlockAllocator.Run run = alloc.allocate(tx, goal, 1, n - reserved.size());
          for (long b = run.start(); b < run.end(); b++) {
            reserved.add(b);
          }
          goal = run.end();
        }
      } catch (IOException | RuntimeException e) {
        for (long b : reserved) {
          alloc.free(tx, b, 1);
        }
        reserved.clear();
        throw e;
      }
      blocksDelta += n;
    }

    void writeRoot(ExtentNode node) {
      if (dry) {
        return;
      }
      byte[] ib = new byte[RawInode.I_BLOCK_SIZE];
      node.encode(ib, 0, ib.length, ExtentNode.ROOT_MAX, null);
      inode.fields.lock();
      try {
        inode.raw().iBlock(ib);
      } finally {
        inode.fields.unlock();
      }
    }

    /**
     * Writes nodes of depth {@code depth} (the first into {@code reuse} when it is a block, else into
     * fresh blocks), frees {@code reuse} when there are none, and returns their {firstKey, block} rows.
     */
    List<long[]> writeNodes(long reuseBlock, int oldCount, int depth, List<ExtentNode> nodes) throws IOException {
      List<long[]> rows = new ArrayList<>(nodes.size());
      for (int k = 0; k < nodes.size(); k++) {
        ExtentNode n = nodes.get(k);
        if (depth > 0) {
          n = new ExtentNode(depth, n.keys(), n.values(), n.lengths(), n.unwritten());
        }
        long block;
        if (dry) {
          block = k == 0 && reuseBlock > 0 ? reuseBlock : newTreeBlock();
        } else if (k == 0 && reuseBlock > 0) {
          block = reuseBlock;
          try (Buf b = tx.read(block)) {
            tx.modify(b);
            n.encode(b.array(), 0, lay.blockSize(), perBlock, lay.metadataCsum() ? seed : null);
            decoded.put(block, seed, b.array(), n); // decode(encode(n)) is n (ExtentNodeTest)
            tx.dirty(b);
          }
          if (n.count() < oldCount) {
            structural = true; // it lost entries: the levels' fill may now be what e2fsck dislikes
          }
        } else {
          block = newTreeBlock();
          try (Buf b = tx.create(block)) {
            n.encode(b.array(), 0, lay.blockSize(), perBlock, lay.metadataCsum() ? seed : null);
            decoded.put(block, seed, b.array(), n);
            tx.dirty(b);
          }
          structural = true;
        }
        rows.add(new long[] {n.keys()[0], block});
      }
      if (nodes.isEmpty() && reuseBlock > 0) {
        freeTreeBlock(reuseBlock);
      }
      return rows;
    }

    long newTreeBlock() throws IOException {
      if (!reuse.isEmpty()) {
        return reuse.removeFirst();
      }
      if (dry) {
        newBlocks++;
        return 1; // never read or written in pass 1
      }
      if (reserved.isEmpty()) {
        throw new IllegalStateException("extent tree of inode " + inode.ino + " needs more new blocks than its dry run counted");
      }
      return reserved.removeFirst();
    }

    void freeTreeBlock(long block) throws IOException {
      if (dry) {
        return;
      }
      tx.forget(block);
      alloc.free(tx, block, 1);
      blocksDelta--;
      structural = true;
    }

    /** Checks the shape after a structural change, rebuilds if needed, and charges i_blocks. */
    void finish() throws IOException {
      for (long b : reserved) { // none, unless pass 2 took fewer than pass 1 counted
        alloc.free(tx, b, 1);
        blocksDelta--;
      }
      reserved.clear();
      if (structural && root().depth() > 0) {
        if (misshapen(levelStats(this))) {
          rebuild(this);
        } else if (root().depth() == 1) {
          collapseSmall();
        }
      }
      if (blocksDelta != 0) {
        long sectors = blocksDelta * lay.sectorsPerBlock();
        inode.fields.lock();
        try {
          RawInode r = inode.raw();
          r.blocksRaw(r.blocksRaw() + sectors);
        } finally {
          inode.fields.unlock();
        }
        blocksDelta = 0;
      }
    }

    /** A depth-1 tree whose leaves hold at most 4 extents in all moves them into the root. */
    private void collapseSmall() throws IOException {
      ExtentNode root = root();
      List<Extent> all = new ArrayList<>();
      for (int i = 0; i < root.count(); i++) {
        ExtentNode leaf = read(root.values()[i], 0);
        for (int j = 0; j < leaf.count(); j++) {
          all.add(extent(leaf, j));
        }
        if (all.size() > ExtentNode.ROOT_MAX) {
          return;
        }
      }
      writeRoot(leafNode(all));
      for (int i = 0; i < root.count(); i++) {
        freeTreeBlock(root.values()[i]);
      }
    }
  }
}
