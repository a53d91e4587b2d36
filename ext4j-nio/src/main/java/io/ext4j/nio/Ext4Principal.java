package io.ext4j.nio;

import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;

/**
 * An owner or group of an image: a numeric id, named by its decimal digits (an image carries no
 * user database; {@code ls -n} shows the same). The lookup service takes those digits back.
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

  /** Looks names up as decimal ids. */
  static final UserPrincipalLookupService LOOKUP = new UserPrincipalLookupService() {
    @Override
    public UserPrincipal lookupPrincipalByName(String name) throws UserPrincipalNotFoundException {
      return user(parse(name));
    }

    @Override
    public GroupPrincipal lookupPrincipalByGroupName(String group) throws UserPrincipalNotFoundException {
      return group(parse(group));
    }

    private long parse(String name) throws UserPrincipalNotFoundException {
      try {
        long id = Long.parseLong(name);
        if (id < 0 || id > 0xFFFF_FFFFL) {
          throw new UserPrincipalNotFoundException(name);
        }
        return id;
      } catch (NumberFormatException e) {
        throw new UserPrincipalNotFoundException(name);
      }
    }
  };
}
