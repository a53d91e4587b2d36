package io.ext4j.tools.mkfs;

import io.ext4j.fs.format.Ext4Superblock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The three ext4 feature masks (superblock {@code s_feature_compat}, {@code _incompat},
 * {@code _ro_compat}), with the names {@code dumpe2fs} prints for each bit. Immutable.
 *
 * <h2>Edit strings</h2>
 * {@link #edit(String)} reads what {@code mke2fs -O} reads: names separated by commas or blanks, each
 * optionally prefixed by {@code ^} or {@code -} (clear) or {@code +} (set); {@code none} (or
 * {@code clear}) clears every bit so far. Names are those of {@link #names()}, case-insensitive, plus
 * the aliases {@code gdt_csum} and {@code uninit_groups} (uninit_bg), {@code extents} (extent) and
 * {@code fname_encoding} (casefold). An unknown name is an {@link IllegalArgumentException}. The edit
 * applies no dependency rule; {@link MkfsParameters.Builder#build()} does.
 */
public record FeatureSet(int compat, int incompat, int roCompat) {
  public static final int COMPAT_HAS_JOURNAL = 0x0004;
  public static final int COMPAT_EXT_ATTR = 0x0008;
  public static final int COMPAT_RESIZE_INODE = 0x0010;
  public static final int COMPAT_DIR_INDEX = 0x0020;
  public static final int COMPAT_SPARSE_SUPER2 = 0x0200;
  public static final int COMPAT_FAST_COMMIT = 0x0400;
  public static final int COMPAT_ORPHAN_FILE = 0x1000;

  public static final int INCOMPAT_FILETYPE = 0x0002;
  public static final int INCOMPAT_JOURNAL_DEV = 0x0008;
  public static final int INCOMPAT_META_BG = 0x0010;
  public static final int INCOMPAT_EXTENTS = 0x0040;
  public static final int INCOMPAT_64BIT = 0x0080;
  public static final int INCOMPAT_MMP = 0x0100;
  public static final int INCOMPAT_FLEX_BG = 0x0200;
  public static final int INCOMPAT_CSUM_SEED = 0x2000;
  public static final int INCOMPAT_INLINE_DATA = 0x8000;

  public static final int RO_COMPAT_SPARSE_SUPER = 0x0001;
  public static final int RO_COMPAT_GDT_CSUM = 0x0010;
  public static final int RO_COMPAT_QUOTA = 0x0100;
  public static final int RO_COMPAT_BIGALLOC = 0x0200;
  public static final int RO_COMPAT_METADATA_CSUM = 0x0400;
  public static final int RO_COMPAT_PROJECT = 0x2000;

  /**
   * Upstream {@code misc/mke2fs.conf.in} (1.47.0) for ext4: base_features sparse_super, large_file,
   * filetype, resize_inode, dir_index, ext_attr plus has_journal, extent, huge_file, flex_bg,
   * metadata_csum, metadata_csum_seed, 64bit, dir_nlink, extra_isize, orphan_file.
   */
  public static final FeatureSet MKE2FS_EXT4_DEFAULTS = new FeatureSet(0x103C, 0x22C2, 0x046B);

  /** Which mask a bit lives in, with its kind number in {@link Ext4Superblock#featureName}. */
  enum Kind {
    COMPAT(0),
    INCOMPAT(1),
    RO_COMPAT(2);

    /** The kind number {@link Ext4Superblock#featureName} and {@link Ext4Superblock#featureByName} use. */
    final int superblockKind;

    Kind(int superblockKind) {
      this.superblockKind = superblockKind;
    }

    static Kind ofSuperblockKind(int kind) {
      for (Kind k : values()) {
        if (k.superblockKind == kind) {
          return k;
        }
      }
      throw new IllegalArgumentException("no feature kind " + kind);
    }
  }

  public boolean hasCompat(int bit) {
    return (compat & bit) != 0;
  }

  public boolean hasIncompat(int bit) {
    return (incompat & bit) != 0;
  }

  public boolean hasRoCompat(int bit) {
    return (roCompat & bit) != 0;
  }

  public FeatureSet withCompat(int bit, boolean on) {
    return new FeatureSet(on ? compat | bit : compat & ~bit, incompat, roCompat);
  }

  public FeatureSet withIncompat(int bit, boolean on) {
    return new FeatureSet(compat, on ? incompat | bit : incompat & ~bit, roCompat);
  }

  public FeatureSet withRoCompat(int bit, boolean on) {
    return new FeatureSet(compat, incompat, on ? roCompat | bit : roCompat & ~bit);
  }

  /** Group descriptors carry checksums (metadata_csum or uninit_bg), so UNINIT flags are used. */
  public boolean hasGroupDescriptorChecksums() {
    return hasRoCompat(RO_COMPAT_METADATA_CSUM) || hasRoCompat(RO_COMPAT_GDT_CSUM);
  }

  /** This set with the edits of {@code spec} applied in order (see the class doc). */
  public FeatureSet edit(String spec) {
    FeatureSet f = this;
    for (String token : spec.trim().split("[,\\s]+", -1)) {
      if (token.isEmpty()) {
        continue;
      }
      boolean on = true;
      String name = token;
      if (name.startsWith("^") || name.startsWith("-")) {
        on = false;
        name = name.substring(1);
      } else if (name.startsWith("+")) {
        name = name.substring(1);
      }
      name = name.toLowerCase(Locale.ROOT);
      if (name.equals("none") || name.equals("clear")) {
        f = new FeatureSet(0, 0, 0);
        continue;
      }
      Bit bit = lookup(name);
      if (bit == null) {
        throw new IllegalArgumentException("unknown feature '" + name + "' in \"" + spec + "\"");
      }
      f = switch (bit.kind()) {
        case COMPAT -> f.withCompat(bit.mask(), on);
        case INCOMPAT -> f.withIncompat(bit.mask(), on);
        case RO_COMPAT -> f.withRoCompat(bit.mask(), on);
      };
    }
    return f;
  }

  /** A named feature bit. */
  record Bit(Kind kind, int mask) {}

  /** The bit of a feature name or alias, or null if unknown. */
  static Bit lookup(String name) {
    String canonical = switch (name) {
      case "gdt_csum", "uninit_groups" -> "uninit_bg";
      case "extents" -> "extent";
      case "fname_encoding" -> "casefold";
      default -> name;
    };
    int[] f = Ext4Superblock.featureByName(canonical);
    return f == null ? null : new Bit(Kind.ofSuperblockKind(f[0]), f[1]);
  }

  /** The names of the set bits, compat then incompat then ro_compat; unnamed bits as FEATURE_C12 etc. */
  public List<String> names() {
    List<String> out = new ArrayList<>();
    collect(out, compat, Kind.COMPAT, "FEATURE_C");
    collect(out, incompat, Kind.INCOMPAT, "FEATURE_I");
    collect(out, roCompat, Kind.RO_COMPAT, "FEATURE_R");
    return out;
  }

  private static void collect(List<String> out, int mask, Kind kind, String unnamed) {
    for (int i = 0; i < 32; i++) {
      if ((mask & (1 << i)) != 0) {
        String name = Ext4Superblock.featureName(kind.superblockKind, 1 << i);
        out.add(name != null ? name : unnamed + i);
      }
    }
  }

  @Override
  public String toString() {
    return String.format("FeatureSet[compat=0x%X, incompat=0x%X, ro_compat=0x%X: %s]",
        compat, incompat, roCompat, String.join(",", names()));
  }
}
