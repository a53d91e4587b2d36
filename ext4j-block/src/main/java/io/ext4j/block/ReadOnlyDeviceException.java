package io.ext4j.block;

/** A write or flush was attempted on a device opened read-only. */
public final class ReadOnlyDeviceException extends BlockDeviceException {
  private static final long serialVersionUID = 1L;

  public ReadOnlyDeviceException(String device) {
    super(device, -1, "device is open read-only");
  }
}
