/**
 * Test support shared by every module's tests: block-device contracts, fault injection, crash-state
 * enumeration, the kernel's fixture images, the e2fsprogs oracles, seeds, and the per-tag test
 * counts ({@link io.ext4j.testkit.TagCounts}). Not part of the published API.
 */
module io.ext4j.testkit {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires transitive io.ext4j.block;
  requires transitive org.junit.jupiter.api;
  requires transitive org.junit.platform.launcher; // TagCounts, a public TestExecutionListener
  requires org.assertj.core;

  exports io.ext4j.testkit;

  provides org.junit.platform.launcher.TestExecutionListener with io.ext4j.testkit.TagCounts;
}
