package io.ext4j.testkit;

import io.ext4j.block.BlockDeviceException;

/** An I/O failure injected by {@link FaultyBlockDevice}: tests can tell it from a real one. */
public final class InjectedFaultException extends BlockDeviceException {
  private static final long serialVersionUID = 1L;

  public InjectedFaultException(String device, long block, String operation) {
    super(device, block, "injected fault on " + operation);
  }
}
