/**
 * A FUSE mount of the ext4 engine: {@link io.ext4j.fuse.FuseMount} speaks the kernel's
 * {@code /dev/fuse} protocol directly (FFM calls to libc; no libfuse), and a thin dispatcher turns
 * each request into one {@link io.ext4j.fs.Ext4FileSystem} call. Linux only. No filesystem rule of
 * its own lives here: the kernel checks permissions, the engine does the rest.
 */
package io.ext4j.fuse;
