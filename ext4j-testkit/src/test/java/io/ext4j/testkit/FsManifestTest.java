package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class FsManifestTest {
  private static final List<String> LINES = List.of(
      "# statfs bsize=1024 blocks=100 bfree=50 bavail=40 files=16 ffree=5",
      "/ type=d mode=0755 nlink=3",
      "/a type=f mode=0644 size=3 sha256=abc xattr.user.x=01ff",
      "/a\\x20b type=l target=..\\x5cx",
      "/a/b type=d mode=0700",
      "/\\xc3\\xa9 type=p mode=0600");

  @Test
  void parseThenLines_givesTheLinesBack_sortedByPathBytes() {
    FsManifest m = FsManifest.parse(LINES);
    // "/a b" (0x20) before "/a/b" (0x2f) before "/é" (0xc3)
    assertThat(m.lines()).containsExactlyElementsOf(LINES);
    assertThat(m.statfs()).containsEntry("bfree", "50");
    assertThat(m.field("/a", "xattr.user.x")).isEqualTo("01ff");
    assertThat(m.size()).isEqualTo(5);
  }

  @Test
  void escape_keepsPrintableAsciiButBackslashAndEquals_andUnescapeInvertsIt() {
    byte[] raw = "a b=c\\é\n~".getBytes(StandardCharsets.UTF_8);
    String e = FsManifest.escape(raw);
    assertThat(e).isEqualTo("a\\x20b\\x3dc\\x5c\\xc3\\xa9\\x0a~");
    assertThat(FsManifest.unescape(e)).isEqualTo(raw);
    assertThat(FsManifest.child("/", raw)).isEqualTo("/" + e);
    assertThat(FsManifest.child("/d", raw)).isEqualTo("/d/" + e);
  }

  @Test
  void differences_nameEveryMissingExtraAndChangedField() {
    FsManifest a = FsManifest.parse(LINES);
    FsManifest b = FsManifest.parse(List.of(
        "# statfs bsize=1024 blocks=100 bfree=51 bavail=40 files=16 ffree=5",
        "/ type=d mode=0755 nlink=3",
        "/a type=f mode=0600 size=3 sha256=abc",
        "/a/b type=d mode=0700",
        "/a/c type=f",
        "/\\xc3\\xa9 type=p mode=0600"));
    assertThat(a.differences(b, 10)).containsExactly(
        "statfs: bfree expected 50, actual 51",
        "/a: mode expected 0644, actual 0600",
        "/a: xattr.user.x expected 01ff, actual (none)",
        "missing /a\\x20b type=l target=..\\x5cx",
        "unexpected /a/c type=f");
    assertThat(a.differences(a, 10)).isEmpty();
    assertThat(a.differences(b, 2)).hasSize(3).last().isEqualTo("... and 3 more differences");
  }

  @Test
  void without_dropsFieldsEverywhere_byNameOrPrefix_andStatfsNumbers() {
    FsManifest m = FsManifest.parse(LINES).without("mode", "xattr.*", "statfs.bavail");
    assertThat(m.entry("/a")).containsOnlyKeys("type", "size", "sha256");
    assertThat(m.statfs()).doesNotContainKey("bavail").containsKey("bfree");
    assertThat(FsManifest.parse(LINES).withoutAt("/a", "size").entry("/a")).doesNotContainKey("size");
    assertThat(FsManifest.parse(LINES).withoutAt("/a", "size").entry("/a/b")).containsKey("mode");
  }

  @Test
  void parse_refusesARepeatedPathOrAFieldWithoutValue() {
    assertThatThrownBy(() -> FsManifest.parse(List.of("/a type=f", "/a type=d"))).hasMessageContaining("/a twice");
    assertThatThrownBy(() -> FsManifest.parse(List.of("/a type"))).hasMessageContaining("line 1");
  }

  @Test
  void timesAndSegments_roundTrip() {
    Instant t = Instant.ofEpochSecond(-2, 500);
    assertThat(FsManifest.time(t)).isEqualTo("-2.000000500");
    assertThat(FsManifest.parseTime("-2.000000500")).isEqualTo(t);
    String data = "0:1024:aa,2199023260672:2048:bb";
    assertThat(FsManifest.segments(FsManifest.parseSegments(data))).isEqualTo(data);
    assertThat(FsManifest.parseSegments("-")).isEmpty();
    assertThat(FsManifest.hex(new byte[0])).isEqualTo("-");
    assertThat(FsManifest.parseHex("01ff")).containsExactly(1, -1);
  }

  @Test
  void everyFixturesManifest_parses_andHasItsRoot() throws Exception {
    for (String name : KernelFsFixtures.names()) {
      FsManifest m = KernelFsFixtures.manifest(name);
      assertThat(m.entry("/")).as(name).containsEntry("type", "d").containsEntry("ino", "2");
      assertThat(m.statfs()).as(name).containsKeys("bsize", "blocks", "bfree", "bavail", "files", "ffree");
      assertThat(Integer.parseInt(m.statfs().get("bsize"))).isEqualTo(KernelFsFixtures.blockSize(name));
    }
  }
}
