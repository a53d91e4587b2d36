package io.ext4j.fs;

import java.nio.charset.StandardCharsets;

/**
 * One directory entry as {@code readdir} returns it.
 *
 * @param name the name's bytes (ext4 names are bytes; usually UTF-8)
 * @param ino the inode it names
 * @param type the file_type byte (1 regular, 2 directory, 3 char device, 4 block device, 5 fifo,
 *     6 socket, 7 symlink; 0 without the filetype feature)
 * @param cookie pass it back to {@code readdir} to continue after this entry
 */
public record DirEntry(byte[] name, long ino, int type, long cookie) {
  public String nameString() {
    return new String(name, StandardCharsets.UTF_8);
  }

  public boolean isDot() {
    return (name.length == 1 && name[0] == '.') || (name.length == 2 && name[0] == '.' && name[1] == '.');
  }
}
