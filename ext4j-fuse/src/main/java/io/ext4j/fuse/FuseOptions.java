package io.ext4j.fuse;

import io.ext4j.fs.AtimeUpdates;
import java.util.ArrayList;
import java.util.List;

/**
 * How a FUSE mount behaves: the {@code -o} options of {@code ext4j mount}, validated.
 *
 * @param readOnly {@code ro}: the image is opened read-only and mounted MS_RDONLY (default rw)
 * @param allowOther {@code allow_other}: users other than the mounting one may use the mount
 * @param defaultPermissions {@code default_permissions} (the default): the kernel checks permissions
 *     from the mode bits and ACLs before it asks; {@code no_default_permissions}: it does not, and
 *     the engine's VFS makes the same checks with the caller's credentials
 * @param writebackCache {@code writeback_cache}: the kernel caches writes and sends them in large
 *     batches (fsync still writes them back before asking ext4j to sync; default off)
 * @param directIo {@code direct_io}: every open bypasses the kernel's page cache (default: only
 *     O_DIRECT opens do)
 * @param maxWrite {@code max_write=N}: the largest write one request carries, 4 KiB…1 MiB (default 1 MiB)
 * @param threads {@code threads=N}: requests served at once, 1…256 (default 16)
 * @param attrTimeoutNs {@code attr_timeout=S}: how long the kernel may cache attributes (default 1 s)
 * @param entryTimeoutNs {@code entry_timeout=S}: how long it may cache names (default 1 s); without
 *     default_permissions never, so that each walk of a path asks, and the engine checks the search
 *     permission of each directory in it
 * @param fsName {@code fsname=…}: the mount's source as mount(8) shows it (default the image path)
 * @param dirSync {@code dirsync}: every directory change is durable when it returns (the engine's
 *     {@code Ext4Options.dirSync}; it applies where the image is opened, as {@code ext4j mount}
 *     does, not to an engine already open; default off)
 * @param mountFlags the per-mount flags of mount(2) besides read-only, as mount(8)'s options set them:
 *     {@code nosuid} and {@code nodev} by default (as libfuse mounts; {@code suid} and {@code dev}
 *     clear them, for root only), {@code noexec}, {@code sync}, and the atime flags the kernel shows
 *     in /proc/mounts ({@code noatime}, {@code nodiratime}, {@code relatime}, {@code strictatime},
 *     {@code lazytime}); FUSE leaves access times to the file system, which keeps them as
 *     {@code atime} says
 * @param atime when the engine updates access times ({@code relatime} by default, {@code strictatime},
 *     {@code noatime}; applied where the image is opened, as {@code dirsync})
 * @param noDirAtime {@code nodiratime}: listing a directory leaves its access time
 */
public record FuseOptions(boolean readOnly, boolean allowOther, boolean writebackCache, boolean directIo, int maxWrite,
    int threads, long attrTimeoutNs, long entryTimeoutNs, String fsName, boolean dirSync, boolean defaultPermissions, long mountFlags,
    AtimeUpdates atime, boolean noDirAtime) {

  public static final int MAX_WRITE_LIMIT = 1 << 20;

  // mount(2) flags (linux/mount.h)
  public static final long MS_NOSUID = 2;
  public static final long MS_NODEV = 4;
  public static final long MS_NOEXEC = 8;
  public static final long MS_SYNCHRONOUS = 16;
  public static final long MS_NOATIME = 1024;
  public static final long MS_NODIRATIME = 2048;
  public static final long MS_RELATIME = 1 << 21;
  public static final long MS_STRICTATIME = 1 << 24;
  public static final long MS_LAZYTIME = 1 << 25;
  private static final long ATIME_FLAGS = MS_NOATIME | MS_RELATIME | MS_STRICTATIME;
  /** mount(8) options that concern mount(8) or fstab, not the mount: accepted and ignored. */
  private static final java.util.Set<String> IGNORED = java.util.Set.of("defaults", "auto", "noauto", "user", "users",
      "nouser", "owner", "group", "nofail", "_netdev", "async", "loud", "silent");

  public FuseOptions {
    if (maxWrite < 4096 || maxWrite > MAX_WRITE_LIMIT || Integer.bitCount(maxWrite) != 1) {
      throw new IllegalArgumentException("max_write=" + maxWrite + ": must be a power of two from 4096 to " + MAX_WRITE_LIMIT);
    }
    if (threads < 1 || threads > 256) {
      throw new IllegalArgumentException("threads=" + threads + ": must be 1 to 256");
    }
    if (attrTimeoutNs < 0 || entryTimeoutNs < 0) {
      throw new IllegalArgumentException("attr_timeout and entry_timeout must not be negative");
    }
    java.util.Objects.requireNonNull(atime, "atime");
    if (fsName != null && (fsName.contains(",") || fsName.isEmpty())) {
      throw new IllegalArgumentException("fsname=" + fsName + ": must be non-empty and without commas");
    }
  }

  public static FuseOptions defaults() {
    return new FuseOptions(false, false, false, false, MAX_WRITE_LIMIT, 16, 1_000_000_000L, 1_000_000_000L, null, false, true,
        MS_NOSUID | MS_NODEV | MS_RELATIME, AtimeUpdates.RELATIME, false);
  }

  /** Parses a comma-separated {@code -o} list over {@code base}; an unknown option fails naming it. */
  public static FuseOptions parse(String list, FuseOptions base) {
    FuseOptions o = base;
    boolean ro = o.readOnly;
    boolean other = o.allowOther;
    boolean wb = o.writebackCache;
    boolean direct = o.directIo;
    int maxWrite = o.maxWrite;
    int threads = o.threads;
    long attr = o.attrTimeoutNs;
    long entry = o.entryTimeoutNs;
    String fsName = o.fsName;
    boolean dirSync = o.dirSync;
    boolean kernelChecks = o.defaultPermissions;
    long flags = o.mountFlags;
    AtimeUpdates atime = o.atime;
    boolean noDirAtime = o.noDirAtime;
    for (String item : split(list)) {
      int eq = item.indexOf('=');
      String key = eq < 0 ? item : item.substring(0, eq);
      String value = eq < 0 ? null : item.substring(eq + 1);
      switch (key) {
        case "ro" -> ro = flag(key, value);
        case "rw" -> ro = !flag(key, value);
        case "allow_other" -> other = flag(key, value);
        case "default_permissions" -> kernelChecks = flag(key, value);
        case "no_default_permissions" -> kernelChecks = !flag(key, value);
        case "writeback_cache" -> wb = flag(key, value);
        case "direct_io" -> direct = flag(key, value);
        case "max_write" -> maxWrite = intValue(key, value);
        case "threads" -> threads = intValue(key, value);
        case "attr_timeout" -> attr = seconds(key, value);
        case "entry_timeout" -> entry = seconds(key, value);
        case "fsname" -> fsName = required(key, value);
        case "dirsync" -> dirSync = flag(key, value);
        case "nosuid", "suid" -> flags = set(flags, MS_NOSUID, key.equals("nosuid") && flag(key, value));
        case "nodev", "dev" -> flags = set(flags, MS_NODEV, key.equals("nodev") && flag(key, value));
        case "noexec", "exec" -> flags = set(flags, MS_NOEXEC, key.equals("noexec") && flag(key, value));
        case "sync" -> flags = set(flags, MS_SYNCHRONOUS, flag(key, value));
        case "noatime" -> {
          flags = (flags & ~ATIME_FLAGS) | (flag(key, value) ? MS_NOATIME : 0);
          atime = AtimeUpdates.NOATIME;
        }
        case "relatime", "atime", "norelatime", "nostrictatime" -> {
          flag(key, value);
          boolean strict = key.equals("norelatime");
          flags = (flags & ~ATIME_FLAGS) | (strict ? MS_STRICTATIME : MS_RELATIME);
          atime = strict ? AtimeUpdates.STRICTATIME : AtimeUpdates.RELATIME;
        }
        case "strictatime" -> {
          flags = (flags & ~ATIME_FLAGS) | (flag(key, value) ? MS_STRICTATIME : 0);
          atime = AtimeUpdates.STRICTATIME;
        }
        case "nodiratime", "diratime" -> {
          noDirAtime = key.equals("nodiratime") && flag(key, value);
          flags = set(flags, MS_NODIRATIME, noDirAtime);
        }
        case "lazytime", "nolazytime" -> flags = set(flags, MS_LAZYTIME, key.equals("lazytime") && flag(key, value));
        default -> {
          if (!IGNORED.contains(key) && !key.startsWith("x-") && !key.equals("comment")) {
            throw unknown(item);
          }
        }
      }
      o = new FuseOptions(ro, other, wb, direct, maxWrite, threads, attr, entry, fsName, dirSync, kernelChecks, flags, atime,
          noDirAtime); // each option checked as read
    }
    return o;
  }

  private static long set(long flags, long bit, boolean on) {
    return on ? flags | bit : flags & ~bit;
  }

  private static IllegalArgumentException unknown(String item) {
    return new IllegalArgumentException("unknown mount option '" + item + "' (known: ro, rw, allow_other, "
        + "default_permissions, no_default_permissions, writeback_cache, direct_io, max_write=N, threads=N, attr_timeout=S, "
        + "entry_timeout=S, fsname=NAME, dirsync, relatime, strictatime, noatime, nodiratime, lazytime, nosuid, suid, nodev, "
        + "dev, noexec, exec, sync)");
  }

  private static List<String> split(String list) {
    List<String> out = new ArrayList<>();
    if (list == null) {
      return out;
    }
    for (String s : list.split(",", 0)) {
      if (!s.isBlank()) {
        out.add(s.strip());
      }
    }
    return out;
  }

  /** A flag's value (true); a flag given a value fails. */
  private static boolean flag(String key, String value) {
    if (value != null) {
      throw new IllegalArgumentException("mount option " + key + " takes no value");
    }
    return true;
  }

  private static String required(String key, String value) {
    if (value == null || value.isEmpty()) {
      throw new IllegalArgumentException("mount option " + key + " needs a value (" + key + "=…)");
    }
    return value;
  }

  private static int intValue(String key, String value) {
    try {
      return Integer.parseInt(required(key, value));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("mount option " + key + "=" + value + ": not a number");
    }
  }

  private static long seconds(String key, String value) {
    try {
      double s = Double.parseDouble(required(key, value));
      if (!(s >= 0 && s < 1e9)) {
        throw new IllegalArgumentException("mount option " + key + "=" + value + ": seconds from 0");
      }
      return Math.round(s * 1e9);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("mount option " + key + "=" + value + ": not a number of seconds");
    }
  }
}
