package io.ext4j.nio;

import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;

/**
 * An owner or group of an image: a numeric id, named by its decimal digits ({@code ls -n} shows the
 * same). The lookup service ({@link #lookup}) takes those digits back, and names through the
 * image's own /etc/passwd and /etc/group when it has them.
 *
 * @param id the uid or gid
 * @param isGroup a gid
 */
record Ext4Principal(long id, boolean isGroup) implements UserPrincipal, GroupPrincipal {
  static Ext4Principal user(long uid) {
    return new Ext4Principal(uid, false);
  }

  static Ext4Principal group(long gid) {
    return new Ext4Principal(gid, true);
  }

  @Override
  public String getName() {
    return Long.toString(id);
  }

  @Override
  public String toString() {
    return getName();
  }

  /**
   * The lookup service of {@code fs}: a name is looked up in the image's own {@code /etc/passwd}
   * (users) or {@code /etc/group} (groups), read at each lookup, when the image has them; a name of
   * decimal digits is that id either way; anything else is {@link UserPrincipalNotFoundException}.
   * Principals are named by their ids (an image carries no user database the host would share).
   */
  static UserPrincipalLookupService lookup(java.nio.file.FileSystem fs) {
    return new UserPrincipalLookupService() {
      @Override
      public UserPrincipal lookupPrincipalByName(String name) throws java.io.IOException {
        return user(resolve(fs.getPath("/etc/passwd"), name));
      }

      @Override
      public GroupPrincipal lookupPrincipalByGroupName(String group) throws java.io.IOException {
        return group(resolve(fs.getPath("/etc/group"), group));
      }
    };
  }

  /** {@code name} as an id: its digits, else the third field of its line in {@code database} (name:password:id:…). */
  private static long resolve(java.nio.file.Path database, String name) throws java.io.IOException {
    try {
      long id = Long.parseLong(name);
      if (id >= 0 && id <= 0xFFFF_FFFFL) {
        return id;
      }
      throw new UserPrincipalNotFoundException(name);
    } catch (NumberFormatException e) {
      // a name: the image's database
    }
    if (!name.isEmpty() && !name.contains(":") && java.nio.file.Files.isRegularFile(database)) {
      for (String line : java.nio.file.Files.readAllLines(database, java.nio.charset.StandardCharsets.UTF_8)) {
        String[] f = line.split(":", -1);
        if (f.length >= 3 && f[0].equals(name)) {
          try {
            long id = Long.parseLong(f[2]);
            if (id >= 0 && id <= 0xFFFF_FFFFL) {
              return id;
            }
          } catch (NumberFormatException e) {
            // a malformed line names no one
          }
        }
      }
    }
    throw new UserPrincipalNotFoundException(name);
  }
}
