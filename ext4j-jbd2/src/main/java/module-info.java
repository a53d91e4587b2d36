/**
 * The jbd2 journal: {@link io.ext4j.jbd2.Journal} and its API in {@code io.ext4j.jbd2}.
 *
 * <p>{@code io.ext4j.jbd2.format} (the on-disk codecs) is exported too: the offline tools' API
 * ({@link io.ext4j.jbd2.JournalRecovery}, {@link io.ext4j.jbd2.JournalLog}) hands out its
 * {@code JournalSuperblock} and {@code JournalFeature}, which a client must be able to read. The
 * engine ({@code io.ext4j.jbd2.internal}) is not exported.
 *
 * <p>Native access: the futex wake-up ({@link io.ext4j.jbd2.CommitWakeup#FUTEX_BROADCAST}) calls
 * {@code futex(2)} through {@code io.ext4j.block.os.Libc}, which needs native access for the module
 * that binds libc: {@code --enable-native-access=io.ext4j.block} on the module path,
 * {@code ALL-UNNAMED} on the class path (the {@code ext4j} JAR's manifest says
 * {@code Enable-Native-Access: ALL-UNNAMED}; the tests' argLine passes it). This module makes no
 * restricted call of its own. Without it the journal wakes waiters one by one.
 */
@SuppressWarnings("module") // "jbd2" ends in a digit: it is the journal's name
module io.ext4j.jbd2 {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires transitive io.ext4j.block;

  exports io.ext4j.jbd2;
  exports io.ext4j.jbd2.format;
}
