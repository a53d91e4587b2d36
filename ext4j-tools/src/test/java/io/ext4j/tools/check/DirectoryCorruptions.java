package io.ext4j.tools.check;

import static io.ext4j.tools.check.Corruptions.editDxRoot;
import static io.ext4j.tools.check.Corruptions.editEntry;
import static io.ext4j.tools.check.Corruptions.entries;

import io.ext4j.tools.check.Corruptions.Corruption;
import io.ext4j.tools.check.Corruptions.Expect;
import io.ext4j.tools.check.Corruptions.Needs;
import io.ext4j.fs.format.DirBlock;
import io.ext4j.fs.format.DxBlock;
import java.util.ArrayList;
import java.util.List;

/** The corruption suite's directory and htree kinds (see {@link Corruptions}). */
final class DirectoryCorruptions {
  private DirectoryCorruptions() {}

  static List<Corruption> kinds() {
    List<Corruption> k = new ArrayList<>();
    // ---- directories
    k.add(new Corruption("directory block checksum", Needs.METADATA_CSUM, c -> {
      byte[] b = c.ed().block(c.t().dirBlock());
      b[c.ed().bs - 4 + c.r().nextInt(4)] ^= (byte) (1 + c.r().nextInt(255));
      c.ed().put(c.t().dirBlock(), b);
      return Expect.error(Problem.DIRECTORY, c.t().dir(), c.t().dirBlock());
    }));
    k.add(new Corruption("directory entry with a bad rec_len", Needs.ANY, c -> editEntry(c, c.t().dir(), c.t().dirBlock(), (b, off) ->
        DirBlock.putRecLen(b, off, c.pick(new Integer[] {5, 13, 4, 8 * c.ed().bs}), c.ed().bs))));
    k.add(new Corruption("dangling entry (to an unused inode)", Needs.ANY, c -> editEntry(c, c.t().dir(), c.t().dirBlock(),
        (b, off) -> ImageEditor.le(b).putInt(off, (int) (c.t().hdir() + Fixture.HTREE_NAMES + 5 + c.r().nextInt(20))))));
    k.add(new Corruption("entry with a wrong file_type", Needs.ANY, c -> editEntry(c, c.t().dir(), c.t().dirBlock(),
        (b, off) -> b[off + 7] = (byte) (1 + (b[off + 7] % 7)))));
    k.add(new Corruption("entry to the root inode", Needs.ANY, c -> editEntry(c, c.t().dir(), c.t().dirBlock(),
        (b, off) -> ImageEditor.le(b).putInt(off, 2))));
    k.add(new Corruption("'/' in a name", Needs.ANY, c -> editEntry(c, c.t().dir(), c.t().dirBlock(),
        (b, off) -> b[off + 8 + c.r().nextInt(b[off + 6] & 0xFF)] = '/')));
    k.add(new Corruption("wrong '..'", Needs.ANY, c -> {
      byte[] b = c.ed().block(c.t().subBlock());
      ImageEditor.le(b).putInt(12, (int) c.pick(new long[] {2, c.t().deeper(), 11}));
      c.ed().fixDirTail(c.t().sub(), b);
      c.ed().put(c.t().subBlock(), b);
      return Expect.inode(c.t().sub());
    }));
    k.add(new Corruption("second link to a directory", Needs.ANY, c -> {
      c.debugfs("link /dir/sub /dir/sub-again");
      return Expect.inode(c.t().dir());
    }));
    k.add(new Corruption("unconnected directory", Needs.ANY, c -> {
      c.debugfs("unlink /dir/sub/deeper");
      return Expect.inode(c.t().deeper());
    }));
    k.add(new Corruption("duplicate name in a block", Needs.ANY, c -> {
      long[] leaf = c.t().hdirBlocks().get(1 + c.r().nextInt(c.t().hdirBlocks().size() - 1));
      byte[] b = c.ed().block(leaf[1]);
      List<Integer> offs = entries(b, c.ed().bs, false);
      List<int[]> pairs = new ArrayList<>();
      for (int x : offs) {
        for (int y : offs) {
          if (x < y && b[x + 6] == b[y + 6]) {
            pairs.add(new int[] {x, y});
          }
        }
      }
      int[] pair = pairs.get(c.r().nextInt(pairs.size()));
      int x = pair[0];
      int y = pair[1];
      System.arraycopy(b, x + 8, b, y + 8, b[x + 6] & 0xFF);
      c.ed().fixDirTail(c.t().hdir(), b);
      c.ed().put(leaf[1], b);
      return Expect.inode(c.t().hdir());
    }));
    // ---- htree
    k.add(new Corruption("htree root checksum", Needs.METADATA_CSUM, c -> editDxRoot(c, (b, cnt) -> {
      int at = cnt + 8 * DxBlock.limit(b, cnt) + 4;
      b[at + c.r().nextInt(4)] ^= (byte) (1 + c.r().nextInt(255));
    }, false)));
    k.add(new Corruption("htree limit", Needs.ANY, c -> editDxRoot(c, (b, cnt) -> DxBlock.setLimit(b, cnt,
        DxBlock.limit(b, cnt) + c.pick(new Integer[] {-1, -2, 1})), true)));
    k.add(new Corruption("htree count above the limit", Needs.ANY,
        c -> editDxRoot(c, (b, cnt) -> DxBlock.setCount(b, cnt, DxBlock.limit(b, cnt) + 1 + c.r().nextInt(3)), false)));
    k.add(new Corruption("htree hashes out of order", Needs.ANY, c -> editDxRoot(c, (b, cnt) -> {
      int n = DxBlock.count(b, cnt);
      int i = 1 + c.r().nextInt(n - 2);
      int hi = DxBlock.hash(b, cnt, i);
      int hj = DxBlock.hash(b, cnt, i + 1);
      DxBlock.setEntry(b, cnt, i, hj, DxBlock.block(b, cnt, i));
      DxBlock.setEntry(b, cnt, i + 1, hi, DxBlock.block(b, cnt, i + 1));
    }, true)));
    k.add(new Corruption("htree block not referenced", Needs.ANY,
        c -> editDxRoot(c, (b, cnt) -> DxBlock.setCount(b, cnt, DxBlock.count(b, cnt) - 1), true)));
    k.add(new Corruption("htree leaf reached through the wrong index entry", Needs.ANY, c -> editDxRoot(c, (b, cnt) -> {
      int n = DxBlock.count(b, cnt);
      int i = 1 + c.r().nextInt(n - 2);
      long bi = DxBlock.block(b, cnt, i);
      long bj = DxBlock.block(b, cnt, i + 1);
      DxBlock.setEntry(b, cnt, i, DxBlock.hash(b, cnt, i), bj);
      DxBlock.setEntry(b, cnt, i + 1, DxBlock.hash(b, cnt, i + 1), bi);
    }, true)));
    return k;
  }
}
