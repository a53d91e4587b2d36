package io.ext4j.fuse;

import io.ext4j.fs.vfs.Capability;
import io.ext4j.fs.vfs.Credentials;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The credentials of the process behind a FUSE request, for the engine's VFS: the request's uid and
 * gid, the process's supplementary groups (the request names only its primary group, so they are
 * read from {@code /proc/PID/status}, and only for the calls whose rules need them: a change of data
 * by a caller without CAP_FSETID, which may clear setgid), every capability for uid 0 and none
 * otherwise, and — with {@code default_permissions} — the permission checks marked as the kernel's.
 * Without it the engine checks every call, so every caller comes with its groups. Translation
 * only: what the credentials permit is the engine's.
 *
 * <p>Thread-safe. A process's groups are cached for {@link #GROUPS_TTL_NANOS}, so that a stream of
 * writes does not read /proc for each.
 */
final class FuseCallers {
  static final long GROUPS_TTL_NANOS = 1_000_000_000L;
  private static final int MAX_CACHED = 4096;

  private record Groups(long[] groups, long readAt) {}

  private final ConcurrentHashMap<Integer, Groups> groups = new ConcurrentHashMap<>();
  private final boolean kernelChecks;

  /** {@code kernelChecks}: mounted with default_permissions. */
  FuseCallers(boolean kernelChecks) {
    this.kernelChecks = kernelChecks;
  }

  /** The caller of {@code r}; its supplementary groups only where the engine checks permissions. */
  Credentials of(FuseRequest r, int umask) {
    return kernelChecks ? build(r, new long[0], umask) : withGroups(r, umask);
  }

  /** The caller of {@code r} with its supplementary groups. */
  Credentials withGroups(FuseRequest r, int umask) {
    return build(r, groupsOf(r.pid), umask);
  }

  /**
   * The writer of a WRITE or a truncating SETATTR: {@code killSuidGid} is the kernel's mark that the
   * caller lacks CAP_FSETID (HANDLE_KILLPRIV_V2), so setuid goes and setgid by its groups; unmarked,
   * the caller keeps both, as one with CAP_FSETID does.
   */
  Credentials writer(FuseRequest r, boolean killSuidGid) {
    if (!killSuidGid) {
      Credentials c = of(r, 0);
      return c.has(Capability.FSETID) ? c : c.withCapabilities(EnumSet.of(Capability.FSETID));
    }
    return withGroups(r, 0).without(Capability.FSETID);
  }

  private Credentials build(FuseRequest r, long[] supplementary, int umask) {
    long uid = Integer.toUnsignedLong(r.uid);
    long gid = Integer.toUnsignedLong(r.gid);
    Credentials c = Credentials.user(uid, gid, supplementary).withUmask(umask);
    if (uid == 0) {
      c = c.withCapabilities(EnumSet.allOf(Capability.class));
    }
    return kernelChecks ? c.asKernelChecked() : c;
  }

  private long[] groupsOf(int pid) {
    long now = System.nanoTime();
    Groups g = groups.get(pid);
    if (g != null && now - g.readAt() < GROUPS_TTL_NANOS) {
      return g.groups();
    }
    long[] read = readGroups(pid);
    if (groups.size() >= MAX_CACHED) {
      groups.clear();
    }
    groups.put(pid, new Groups(read, now));
    return read;
  }

  /** The Groups line of /proc/PID/status; none when the process is gone (the safe side: not a member). */
  static long[] readGroups(int pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Integer.toString(pid), "status"))) {
        if (line.startsWith("Groups:")) {
          String list = line.substring(7).trim();
          if (list.isEmpty()) {
            return new long[0];
          }
          String[] parts = list.split("\\s+", 0);
          long[] out = new long[parts.length];
          for (int i = 0; i < parts.length; i++) {
            out[i] = Long.parseLong(parts[i]);
          }
          return out;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return new long[0];
    }
    return new long[0];
  }
}
