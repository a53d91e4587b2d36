package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.DIRECTORY_TREE;
import static io.ext4j.tools.check.Problem.LINK_COUNT;
import static io.ext4j.tools.check.Problem.NO_BLOCK;

import io.ext4j.fs.format.Ext4Superblock;

/**
 * Passes 3 and 4. The directory tree: every directory is reached from the root through the entries
 * that name it (each directory has at most one such parent, pass 2 saw to that), without loops, and
 * its ".." names that parent. Then link counts: every in-use inode's i_links_count against the names
 * found (for a directory: its parent's entry, its own ".", its subdirectories' ".."), with dir_nlink's
 * 1 for directories past 65000 links and, as e2fsck accepts, for indexed directories; in-use inodes no
 * name reaches are unattached.
 */
final class TreeCheck {
  private static final long ROOT = 2;
  private static final int LINK_MAX = 65000;

  private TreeCheck() {}

  static void run(Scan s) {
    connectivity(s);
    links(s);
  }

  private static void connectivity(Scan s) {
    Scan.DirInfo root = s.dirInfo(ROOT);
    if (root == null) {
      s.out.error(DIRECTORY_TREE, ROOT, NO_BLOCK, "there is no root directory; nothing is connected");
      return;
    }
    root.parent = ROOT;
    root.reached = true;
    if (root.dotdot != ROOT) {
      s.out.error(DIRECTORY_TREE, ROOT, NO_BLOCK, "'..' in the root directory is " + root.dotdot + ", should be 2");
    }
    int n = s.dirs.size();
    byte[] state = new byte[n]; // 0 unknown, 1 on the current path, 2 reached, 3 unreachable
    int[] path = new int[16];
    for (int i = 0; i < n; i++) {
      int len = 0;
      int at = i;
      byte verdict;
      while (true) {
        Scan.DirInfo d = s.dirs.get(at);
        if (d.ino == ROOT || state[at] == 2) {
          verdict = 2;
          break;
        }
        if (state[at] == 3 || state[at] == 1) {
          verdict = 3; // unreachable, or a loop back onto this path
          break;
        }
        state[at] = 1;
        if (len == path.length) {
          path = java.util.Arrays.copyOf(path, len * 2);
        }
        path[len++] = at;
        Scan.DirInfo up = d.parent == 0 ? null : s.dirInfo(d.parent);
        if (up == null) {
          verdict = 3;
          break;
        }
        at = s.dirOrdinal[s.dense(up.ino)] - 1;
      }
      for (int k = 0; k < len; k++) {
        state[path[k]] = verdict;
      }
      if (verdict == 2) {
        s.dirs.get(i).reached = true;
      }
    }
    for (int i = 0; i < n; i++) {
      Scan.DirInfo d = s.dirs.get(i);
      if (d.ino == ROOT) {
        continue;
      }
      if (!d.reached) {
        s.out.error(DIRECTORY_TREE, d.ino, NO_BLOCK, "directory " + d.ino + " is not connected to the root"
            + (d.parent == 0 ? " (no directory names it; its '..' says " + d.dotdot + ")"
            : " (named in " + d.parent + ", which is not reachable: a loop or an unconnected parent)"));
        continue;
      }
      if (d.dotdot != d.parent) {
        s.out.error(DIRECTORY_TREE, d.ino, NO_BLOCK, "'..' in directory " + d.ino + " is " + d.dotdot + ", should be "
            + d.parent + " (the directory that names it)");
      }
    }
    for (int i = 0; i < n; i++) {
      Scan.DirInfo d = s.dirs.get(i);
      int target = s.dense(d.dotdot);
      if (target >= 0 && s.type[target] == Scan.T_DIR) {
        s.refs[target]++;
      }
    }
  }

  private static void links(Scan s) {
    boolean dirNlink = s.sb.hasRoCompat(Ext4Superblock.RO_COMPAT_DIR_NLINK);
    for (int g = 0; g < s.groups; g++) {
      for (int idx = 0; idx < s.scanned[g]; idx++) {
        int d = (int) (s.base[g] + idx);
        byte t = s.type[d];
        if (t == 0) {
          continue;
        }
        long ino = (long) g * s.ipg + idx + 1;
        if (s.isUnnamedSpecial(ino)) {
          continue;
        }
        long counted = s.refs[d];
        long stored = s.links[d];
        if (counted == 0) {
          s.out.error(LINK_COUNT, ino, NO_BLOCK, "inode " + ino + " is in use (links " + stored
              + ") but no directory entry names it (unattached)");
          continue;
        }
        if (t == Scan.T_DIR) {
          if (counted > LINK_MAX && dirNlink) {
            counted = 1;
          }
          Scan.DirInfo info = s.dirInfo(ino);
          if (stored == 1 && info != null && info.indexed) {
            continue; // e2fsck -n accepts dir_nlink's 1 on an indexed directory
          }
        }
        if (counted != stored) {
          s.out.error(LINK_COUNT, ino, NO_BLOCK, "i_links_count is " + stored + ", should be " + counted);
        }
      }
    }
  }
}
