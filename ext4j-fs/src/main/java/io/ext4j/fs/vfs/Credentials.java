package io.ext4j.fs.vfs;

import io.ext4j.fs.Caller;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * Who makes a VFS call, as the kernel's {@code struct cred} and the process's umask: the filesystem
 * user and group ids, the supplementary groups, the umask that new inodes' modes lose, and the
 * capabilities that exempt the caller from permission rules. Immutable.
 *
 * <p>{@link #kernelChecked()} marks the credentials of a FUSE request the kernel already checked
 * ({@code default_permissions}): the VFS then makes none of the permission checks the kernel's own
 * VFS made — mode bits and ACLs, sticky directories, owner-only changes — but still applies the
 * rules the kernel leaves to the filesystem: clearing setuid, setgid and capabilities, and the
 * inode flags (immutable, append-only).
 */
public final class Credentials {
  private static final Set<Capability> ALL = EnumSet.allOf(Capability.class);
  private static final int DEFAULT_UMASK = 022;
  private static final Credentials ROOT = new Credentials(0, 0, new long[0], DEFAULT_UMASK, ALL, false);

  private final long uid;
  private final long gid;
  private final long[] groups; // sorted, distinct
  private final int umask;
  private final Set<Capability> caps; // unmodifiable
  private final boolean kernelChecked;

  private Credentials(long uid, long gid, long[] groups, int umask, Set<Capability> caps, boolean kernelChecked) {
    if (uid < 0 || gid < 0 || uid > 0xFFFF_FFFEL || gid > 0xFFFF_FFFEL) {
      throw new IllegalArgumentException("ids are 0 to 4294967294, not uid " + uid + ", gid " + gid);
    }
    this.uid = uid;
    this.gid = gid;
    this.groups = Arrays.stream(groups).distinct().sorted().toArray();
    this.umask = umask & 0777;
    this.caps = caps.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(caps));
    this.kernelChecked = kernelChecked;
  }

  /** Root: uid and gid 0, every capability, umask 022. */
  public static Credentials root() {
    return ROOT;
  }

  /** An unprivileged user: no capability, umask 022. */
  public static Credentials user(long uid, long gid, long... groups) {
    return new Credentials(uid, gid, groups, DEFAULT_UMASK, Set.of(), false);
  }

  /** The same caller with umask {@code mask} (only its 0777 bits count). */
  public Credentials withUmask(int mask) {
    return new Credentials(uid, gid, groups, mask, caps, kernelChecked);
  }

  /** The same caller with exactly these capabilities. */
  public Credentials withCapabilities(Set<Capability> c) {
    return new Credentials(uid, gid, groups, umask, c, kernelChecked);
  }

  /** The same caller without {@code c} (a FUSE write from a caller lacking CAP_FSETID). */
  public Credentials without(Capability c) {
    if (!caps.contains(c)) {
      return this;
    }
    EnumSet<Capability> less = EnumSet.noneOf(Capability.class);
    less.addAll(caps);
    less.remove(c);
    return withCapabilities(less);
  }

  /** The same caller, whose permission checks its kernel already made (see the class doc). */
  public Credentials asKernelChecked() {
    return kernelChecked ? this : new Credentials(uid, gid, groups, umask, caps, true);
  }

  public long uid() {
    return uid;
  }

  public long gid() {
    return gid;
  }

  /** The supplementary groups, sorted. */
  public long[] groups() {
    return groups.clone();
  }

  public int umask() {
    return umask;
  }

  public Set<Capability> capabilities() {
    return caps;
  }

  public boolean has(Capability c) {
    return caps.contains(c);
  }

  public boolean kernelChecked() {
    return kernelChecked;
  }

  /** Whether {@code g} is the caller's group or one of its supplementary groups (in_group_p). */
  public boolean inGroup(long g) {
    return g == gid || Arrays.binarySearch(groups, g) >= 0;
  }

  /** The owner and group new inodes get, before a setgid directory's group takes over. */
  public Caller caller() {
    return new Caller(uid, gid);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Credentials c && c.uid == uid && c.gid == gid && Arrays.equals(c.groups, groups) && c.umask == umask
        && c.caps.equals(caps) && c.kernelChecked == kernelChecked;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(uid) * 31 + Long.hashCode(gid);
  }

  @Override
  public String toString() {
    return "Credentials[uid " + uid + ", gid " + gid + (groups.length > 0 ? ", groups " + Arrays.toString(groups) : "")
        + ", umask 0" + Integer.toOctalString(umask) + (caps.equals(ALL) ? ", all capabilities" : caps.isEmpty() ? "" : ", " + caps)
        + (kernelChecked ? ", checked by the kernel" : "") + "]";
  }
}
