package io.ext4j.jbd2;

/**
 * How the committer wakes the threads waiting for its transaction (synchronous stops,
 * {@link Journal#waitCommit}); the "before" is kept for the benchmark.
 */
public enum CommitWakeup {
  /**
   * One futex wake-up call for every thread waiting on the transaction, as jbd2 wakes its commit
   * waiters with one {@code wake_up} on a wait queue. The waiters sleep in {@code futex(2)} on a
   * word the committer changes when it publishes; the kernel wakes them all in one system call, and
   * woken threads need no lock to learn the outcome. Needs Linux on x86-64 or AArch64 and native
   * access for ext4j ({@code --enable-native-access=ALL-UNNAMED} on the class path,
   * {@code --enable-native-access=io.ext4j.block} on the module path; the {@code ext4j} launcher and JAR
   * enable it). Where that is missing the journal uses
   * {@link #UNPARK_EACH} instead, without a warning; {@link Journal#commitWakeup()} says which runs.
   * Small groups (fewer than 6 handles in the transaction and in the last commit) still wait to be
   * unparked one by one: for a thread or two an unpark is quicker than a futex round trip. Virtual
   * threads always wait to be unparked: a futex sleep would pin their carrier thread.
   */
  FUTEX_BROADCAST,
  /**
   * The committer unparks each waiting thread in turn ({@code LockSupport.unpark}, a system call per
   * thread), so waking a large group costs the committer more than one broadcast does.
   */
  UNPARK_EACH
}
