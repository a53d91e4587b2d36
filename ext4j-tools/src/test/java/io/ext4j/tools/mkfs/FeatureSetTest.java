package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class FeatureSetTest {

  @Test
  void defaults_areTheUpstreamMke2fsConfExt4Features() {
    assertThat(FeatureSet.MKE2FS_EXT4_DEFAULTS.names()).containsExactlyInAnyOrder(
        "sparse_super", "large_file", "filetype", "resize_inode", "dir_index", "ext_attr", "has_journal", "extent",
        "huge_file", "flex_bg", "metadata_csum", "metadata_csum_seed", "64bit", "dir_nlink", "extra_isize",
        "orphan_file");
    assertThat(FeatureSet.MKE2FS_EXT4_DEFAULTS).isEqualTo(new FeatureSet(0x103C, 0x22C2, 0x046B));
  }

  @Test
  void edit_caretClearsAndPlainOrPlusSets() {
    FeatureSet f = FeatureSet.MKE2FS_EXT4_DEFAULTS.edit("^64bit,^flex_bg,uninit_bg,+meta_bg");

    assertThat(f.hasIncompat(FeatureSet.INCOMPAT_64BIT)).isFalse();
    assertThat(f.hasIncompat(FeatureSet.INCOMPAT_FLEX_BG)).isFalse();
    assertThat(f.hasRoCompat(FeatureSet.RO_COMPAT_GDT_CSUM)).isTrue();
    assertThat(f.hasIncompat(FeatureSet.INCOMPAT_META_BG)).isTrue();
    assertThat(f.compat()).isEqualTo(0x103C);
  }

  @Test
  void edit_acceptsAliasesCaseAndBlankSeparators() {
    FeatureSet f = new FeatureSet(0, 0, 0).edit("GDT_CSUM extents  -dir_index fname_encoding");

    assertThat(f).isEqualTo(new FeatureSet(0, FeatureSet.INCOMPAT_EXTENTS | 0x20000, FeatureSet.RO_COMPAT_GDT_CSUM));
  }

  @Test
  void edit_none_clearsEveryBitSetBeforeIt() {
    assertThat(FeatureSet.MKE2FS_EXT4_DEFAULTS.edit("none,sparse_super").names()).containsExactly("sparse_super");
  }

  @Test
  void edit_withUnknownName_isRejectedNamingIt() {
    assertThatThrownBy(() -> FeatureSet.MKE2FS_EXT4_DEFAULTS.edit("extent,^no_such_thing"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no_such_thing");
  }

  @Test
  void names_ofAnUnnamedBit_isFeatureLetterAndIndex() {
    assertThat(new FeatureSet(1 << 20, 1 << 5, 1 << 30).names()).containsExactly("FEATURE_C20", "FEATURE_I5", "FEATURE_R30");
  }
}
