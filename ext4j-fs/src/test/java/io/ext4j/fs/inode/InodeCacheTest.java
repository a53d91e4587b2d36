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
  void opensAreCountedOnTheObject_andAnExtraCloseIsRefused() {
    Inode i = cache.install(14, RawInode.blank(256));
    cache.opened(i);
    assertThat(cache.closed(i)).isZero();
    assertThatThrownBy(() -> cache.closed(i)).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed more often");
  }
}
