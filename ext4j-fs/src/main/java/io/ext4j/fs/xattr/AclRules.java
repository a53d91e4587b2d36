package io.ext4j.fs.xattr;

import io.ext4j.fs.format.PosixAcl;
import io.ext4j.fs.format.PosixAcl.Entry;
import java.util.ArrayList;
import java.util.List;

/**
 * How POSIX ACLs and permission bits follow each other (POSIX.1e as Linux applies it; pure
 * functions). The permission bits mirror three entries: the owner's bits are USER_OBJ's, the
 * group bits are MASK's when there is a mask and GROUP_OBJ's otherwise, and the other bits are
 * OTHER's. An ACL with only USER_OBJ, GROUP_OBJ and OTHER says nothing the bits do not ("equivalent")
 * and is not stored.
 * <ul>
 *   <li>{@link #chmod}: a mode change rewrites those three entries of the access ACL;
 *   <li>{@link #modeOf}: setting an access ACL sets the permission bits from it;
 *   <li>{@link #inherit}: a new inode in a directory with a default ACL gets that ACL as its access
 *       ACL, with the three entries limited by the mode asked for (the umask does not apply then);
 *       a new directory also inherits the default ACL itself.
 * </ul>
 */
public final class AclRules {
  private AclRules() {}

  /** The access ACL a new inode takes, and its mode; {@code access} null when equivalent to the mode. */
  public record Inherited(int mode, List<Entry> access) {}

  /** The access ACL after chmod to {@code mode}: the three mirrored entries take its bits. */
  public static List<Entry> chmod(List<Entry> acl, int mode) {
    boolean mask = has(acl, PosixAcl.MASK);
    List<Entry> out = new ArrayList<>(acl.size());
    for (Entry e : acl) {
      int perm = switch (e.tag()) {
        case PosixAcl.USER_OBJ -> (mode >>> 6) & 7;
        case PosixAcl.MASK -> (mode >>> 3) & 7;
        case PosixAcl.GROUP_OBJ -> mask ? e.perm() : (mode >>> 3) & 7;
        case PosixAcl.OTHER -> mode & 7;
        default -> e.perm();
      };
      out.add(new Entry(e.tag(), perm, e.id()));
    }
    return out;
  }

  /** The permission bits (0777 part) an access ACL sets. */
  public static int modeOf(List<Entry> acl) {
    int user = 0;
    int group = 0;
    int mask = -1;
    int other = 0;
    for (Entry e : acl) {
      switch (e.tag()) {
        case PosixAcl.USER_OBJ -> user = e.perm() & 7;
        case PosixAcl.GROUP_OBJ -> group = e.perm() & 7;
        case PosixAcl.MASK -> mask = e.perm() & 7;
        case PosixAcl.OTHER -> other = e.perm() & 7;
        default -> { }
      }
    }
    return user << 6 | (mask >= 0 ? mask : group) << 3 | other;
  }

  /** Whether the ACL says more than permission bits can: named users or groups, or a mask. */
  public static boolean extended(List<Entry> acl) {
    for (Entry e : acl) {
      if (e.tag() == PosixAcl.USER || e.tag() == PosixAcl.GROUP || e.tag() == PosixAcl.MASK) {
        return true;
      }
    }
    return false;
  }

  /**
   * A new inode of {@code mode} (type and bits as asked, before any umask) under a directory whose
   * default ACL is {@code dflt}: the mirrored entries are limited by the mode's bits and the mode's
   * bits become theirs; the special bits (setuid, setgid, sticky) and the type stay.
   */
  public static Inherited inherit(List<Entry> dflt, int mode) {
    boolean mask = has(dflt, PosixAcl.MASK);
    List<Entry> out = new ArrayList<>(dflt.size());
    int bits = 0;
    for (Entry e : dflt) {
      int perm = e.perm();
      switch (e.tag()) {
        case PosixAcl.USER_OBJ -> {
          perm &= (mode >>> 6) & 7;
          bits |= perm << 6;
        }
        case PosixAcl.MASK -> {
          perm &= (mode >>> 3) & 7;
          bits |= perm << 3;
        }
        case PosixAcl.GROUP_OBJ -> {
          if (!mask) {
            perm &= (mode >>> 3) & 7;
            bits |= perm << 3;
          }
        }
        case PosixAcl.OTHER -> {
          perm &= mode & 7;
          bits |= perm;
        }
        default -> { }
      }
      out.add(new Entry(e.tag(), perm, e.id()));
    }
    return new Inherited((mode & ~0777) | bits, extended(out) ? out : null);
  }

  private static boolean has(List<Entry> acl, int tag) {
    for (Entry e : acl) {
      if (e.tag() == tag) {
        return true;
      }
    }
    return false;
  }
}
