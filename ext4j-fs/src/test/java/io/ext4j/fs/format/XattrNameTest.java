package io.ext4j.fs.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.testkit.Seeds;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Tag("fast")
class XattrNameTest {

  @ParameterizedTest(name = "{0} -> {1}:{2}")
  @CsvSource(delimiter = '|', value = {
      "user.mime_type                  | 1  | mime_type",
      "system.posix_acl_access         | 2  | ''",
      "system.posix_acl_default        | 3  | ''",
      "trusted.overlay.opaque          | 4  | overlay.opaque",
      "security.selinux                | 6  | selinux",
      "system.data                     | 7  | data",
      "system.richacl                  | 8  | ''",
      "gnu.translator                  | 10 | translator",
      "user.                           | 1  | ''",
      "system.posix_acl_accessX        | 2  | X",
      "system.posix_acl                | 7  | posix_acl"})
  void parse_splitsAtTheLongestKnownPrefix(String fullName, int index, String suffix) {
    XattrName n = XattrName.parse(fullName);

    assertThat(n.index()).isEqualTo(index);
    assertThat(new String(n.suffix(), StandardCharsets.UTF_8)).isEqualTo(suffix);
    assertThat(n.fullName()).isEqualTo(fullName);
  }

  @Test
  void parse_ofUnknownNamespace_namesIt() {
    assertThatThrownBy(() -> XattrName.parse("lustre.lov"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown xattr namespace \"lustre.\" in \"lustre.lov\"");
    assertThatThrownBy(() -> XattrName.parse("users"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown xattr namespace \"users\"");
  }

  @Test
  void constructor_rejectsIndexZeroAndLongSuffixes() {
    assertThatThrownBy(() -> new XattrName(0, new byte[1])).hasMessageContaining("index 0");
    assertThatThrownBy(() -> new XattrName(256, new byte[1])).hasMessageContaining("index 256");
    assertThatThrownBy(() -> new XattrName(1, new byte[256])).hasMessageContaining("256 bytes exceeds 255");
  }

  @Test
  void fullName_ofIndexWithoutPrefix_isRefused_butToStringShowsIt() {
    XattrName enc = new XattrName(XattrName.ENCRYPTION, new byte[] {'c'});

    assertThat(enc.hasFullName()).isFalse();
    assertThatThrownBy(enc::fullName).isInstanceOf(IllegalStateException.class).hasMessageContaining("index 9");
    assertThat(enc).hasToString("index9:63");
  }

  @Test
  void parse_ofFullName_roundTripsRandomNames_asBytes() {
    long seed = Seeds.seed();
    Random rnd = new Random(seed);
    int[] indexes = {1, 2, 3, 4, 6, 7, 8, 10};
    for (int i = 0; i < 1000; i++) {
      byte[] suffix = new byte[rnd.nextInt(40)];
      rnd.nextBytes(suffix);
      XattrName n = new XattrName(indexes[rnd.nextInt(indexes.length)], suffix);
      XattrName back = XattrName.parse(n.fullNameBytes());
      // "system." + "posix_acl_access…" parses to index 2, as e2fsprogs and the longest-prefix rule do.
      if (n.index() != XattrName.SYSTEM || !startsWithLongerSystemPrefix(suffix)) {
        assertThat(back).as("seed %d", seed).isEqualTo(n);
      }
      assertThat(back.fullNameBytes()).as("seed %d", seed).isEqualTo(n.fullNameBytes());
    }
  }

  private static boolean startsWithLongerSystemPrefix(byte[] suffix) {
    String s = new String(suffix, StandardCharsets.ISO_8859_1);
    return s.startsWith("posix_acl_access") || s.startsWith("posix_acl_default") || s.startsWith("richacl");
  }

  @Test
  void blockOrder_isIndexThenLengthThenUnsignedBytes() {
    List<XattrName> names = new ArrayList<>(List.of(
        new XattrName(6, new byte[] {'a'}),
        new XattrName(1, new byte[] {(byte) 0x80}),
        new XattrName(1, new byte[] {'a', 'a'}),
        new XattrName(1, new byte[] {'z'}),
        new XattrName(1, new byte[0]),
        new XattrName(2, new byte[0])));
    names.sort(XattrName.BLOCK_ORDER);

    assertThat(names).containsExactly(
        new XattrName(1, new byte[0]),
        new XattrName(1, new byte[] {'z'}),
        new XattrName(1, new byte[] {(byte) 0x80}),
        new XattrName(1, new byte[] {'a', 'a'}),
        new XattrName(2, new byte[0]),
        new XattrName(6, new byte[] {'a'}));
  }

  @Test
  void equality_isByContent_andSuffixIsCopied() {
    byte[] s = {'x'};
    XattrName n = new XattrName(1, s);
    s[0] = 'y';

    assertThat(n).isEqualTo(XattrName.parse("user.x")).hasSameHashCodeAs(XattrName.parse("user.x"));
    n.suffix()[0] = 'z';
    assertThat(n.fullName()).isEqualTo("user.x");
  }
}
