/**
 * ext4j's one binding to the C library, through the Foreign Function &amp; Memory API (no native
 * library of ext4j's own): {@link io.ext4j.block.os.Libc}, as e2fsprogs' {@code unix_io} is its
 * platform layer. It owns the linker, the symbol lookup, errno capture and {@code strerror}; the tree
 * copier ({@code HostFs}), the FUSE mount and the journal's futex call through it.
 *
 * <p>What is not here: any policy. Which call to make, what a failure means to the user and what to
 * do when the C library cannot be reached are the callers' decisions; this package only says that a
 * call failed and with which errno.
 *
 * <p>Native access: every restricted FFM call of ext4j happens in this package, so
 * {@code --enable-native-access=io.ext4j.block} on the module path ({@code ALL-UNNAMED} on the class
 * path) enables it.
 */
package io.ext4j.block.os;
