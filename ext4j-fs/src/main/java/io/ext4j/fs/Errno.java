package io.ext4j.fs;

/**
 * The errors an engine operation reports, with Linux's numbers (what FUSE returns negated, and what
 * the java.nio adapter maps to the JDK's exceptions).
 */
public enum Errno {
  EPERM(1, "operation not permitted"),
  ENOENT(2, "no such file or directory"),
  EIO(5, "input/output error"),
  ENXIO(6, "no such device or address"),
  E2BIG(7, "argument list too long"),
  EBADF(9, "bad file descriptor"),
  EAGAIN(11, "resource temporarily unavailable"),
  ENOMEM(12, "cannot allocate memory"),
  EACCES(13, "permission denied"),
  EFAULT(14, "bad address"),
  EBUSY(16, "device or resource busy"),
  EEXIST(17, "file exists"),
  EXDEV(18, "invalid cross-device link"),
  ENODEV(19, "no such device"),
  ENOTDIR(20, "not a directory"),
  EISDIR(21, "is a directory"),
  EINVAL(22, "invalid argument"),
  ENOTTY(25, "inappropriate ioctl for device"),
  ETXTBSY(26, "text file busy"),
  EFBIG(27, "file too large"),
  ENOSPC(28, "no space left on device"),
  ESPIPE(29, "illegal seek"),
  EROFS(30, "read-only file system"),
  EMLINK(31, "too many links"),
  ERANGE(34, "numerical result out of range"),
  ENAMETOOLONG(36, "file name too long"),
  ENOSYS(38, "function not implemented"),
  ENOTEMPTY(39, "directory not empty"),
  ELOOP(40, "too many levels of symbolic links"),
  ENODATA(61, "no data available"),
  EOVERFLOW(75, "value too large for defined data type"),
  EBADMSG(74, "bad message (checksum)"),
  EOPNOTSUPP(95, "operation not supported"),
  ESTALE(116, "stale file handle"),
  EUCLEAN(117, "structure needs cleaning"),
  EDQUOT(122, "disk quota exceeded");

  /** ext4's name for a corrupted structure (it is EUCLEAN). */
  public static final Errno EFSCORRUPTED = EUCLEAN;
  /** ext4's name for a checksum mismatch (it is EBADMSG). */
  public static final Errno EFSBADCRC = EBADMSG;

  private final int number;
  private final String description;

  Errno(int number, String description) {
    this.number = number;
    this.description = description;
  }

  /** The Linux errno value. */
  public int number() {
    return number;
  }

  public String description() {
    return description;
  }
}
