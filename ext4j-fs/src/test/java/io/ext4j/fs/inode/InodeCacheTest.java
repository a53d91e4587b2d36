package io.ext4j.fs.inode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.format.RawInode;
import java.util.OptionalInt;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The inode cache's identity rules, without a table behind it (a lookup that missed the map would
 * need one and fail): one object per number while it is in use.
 */
@Tag("fast")
class InodeCacheTest {
  private final InodeCache cache = new InodeCache(null, OptionalInt::empty, 64);

  @Test
  void forgettingAFreedInode_leavesTheNewInodeOfTheSameNumberInPlace() throws Exception {
    Inode freed = cache.install(12, RawInode.blank(256)); // a file being deleted: its number already free in the bitmap
    Inode reused = cache.install(12, RawInode.blank(256)); // another thread allocated the number and installed its new file
    cache.forget(freed); // the deleting thread finishes
    assertThat(cache.get(12)).as("a lookup meets the new file itself, not a second copy loaded from the table").isSameAs(reused);
  }

  @Test
  void aSecondReference_isToTheSameObject_andPairsWithItsPut() throws Exception {
    Inode i = cache.install(13, RawInode.blank(256));
    assertThat(cache.ref(i)).isSameAs(i);
    cache.put(i);
    cache.put(i);
    assertThatThrownBy(() -> cache.put(i)).isInstanceOf(IllegalStateException.class).hasMessageContaining("released more often");
  }

  @Test
  void pinsAreCountedOnTheObject_andAnExtraUnpinIsRefused() {
    Inode i = cache.install(14, withLinks(1));
    assertThat(cache.pin(i)).isTrue();
    assertThat(cache.unpin(i)).as("the last unpin of a linked inode leaves it alive").isFalse();
    assertThatThrownBy(() -> cache.unpin(i)).isInstanceOf(IllegalStateException.class).hasMessageContaining("unpinned more often");
  }

  @Test
  void anUnlinkedUnpinnedInode_cannotBePinnedAgain() {
    Inode freed = cache.install(15, withLinks(0)); // a stale copy of a freed inode, or one whose deletion began
    assertThat(cache.pin(freed)).as("nobody brings an unlinked, unpinned inode back").isFalse();
  }

  @Test
  void theLastUnpinOfAnUnlinkedInode_claimsItForDeletion_once() {
    Inode i = cache.install(16, withLinks(1));
    assertThat(cache.pin(i)).isTrue();
    assertThat(cache.pin(i)).isTrue();
    i.unlinked(true); // its last name went while pinned twice
    assertThat(cache.claim(i)).as("pinned: the unlink leaves the deletion to the last unpin").isFalse();
    assertThat(cache.unpin(i)).isFalse();
    assertThat(cache.unpin(i)).as("the last unpin deletes").isTrue();
    assertThat(cache.isDead(i)).isTrue();
    assertThat(cache.pin(i)).as("dead: no pin any more").isFalse();
    assertThat(cache.claim(i)).as("claimed once").isFalse();
  }

  @Test
  void anUnlinkWithNobodyPinning_claimsAtOnce_andRacingPinsThenFail() {
    Inode i = cache.install(17, withLinks(1));
    i.unlinked(true);
    assertThat(cache.claim(i)).isTrue();
    assertThat(cache.pin(i)).isFalse();
  }

  private static RawInode withLinks(int n) {
    RawInode r = RawInode.blank(256);
    r.links(n);
    return r;
  }
}
