package io.ext4j.fuse;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import java.nio.file.Path;

/**
 * The child JVM of the tests that need the mount in another process (to kill it, or to run it as
 * another user): {@code MountChild IMAGE MOUNTPOINT} mounts, prints "mounted", serves until
 * unmounted, closes the image and prints "unmounted".
 */
final class MountChild {
  private MountChild() {}

  public static void main(String[] args) throws Exception {
    try (Ext4FileSystem fs = Ext4FileSystem.open(Path.of(args[0]), Ext4Options.defaults());
        FuseMount m = FuseMount.mount(fs, args[0], Path.of(args[1]), FuseOptions.defaults())) {
      System.out.println("mounted");
      System.out.flush();
      m.awaitUnmount();
    }
    System.out.println("unmounted");
  }
}
