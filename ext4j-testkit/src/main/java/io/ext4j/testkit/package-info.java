/**
 * Test support shared by every module's tests; on the test class path only, never a production
 * dependency.
 *
 * <ul>
 *   <li>Crash simulation: {@link io.ext4j.testkit.RecordingBlockDevice} logs writes, flushes and the
 *       harness's marks; {@link io.ext4j.testkit.Recording} is that log frozen;
 *       {@link io.ext4j.testkit.CrashStates} enumerates the device states a crash could leave
 *       (CrashMonkey's method), each a {@link io.ext4j.testkit.CrashState} that materializes as a
 *       fresh memory device.
 *   <li>Faults: {@link io.ext4j.testkit.FaultyBlockDevice} fails chosen operations with
 *       {@link io.ext4j.testkit.InjectedFaultException}.
 *   <li>Contracts: {@link io.ext4j.testkit.BlockDeviceContract}, the SPI's obligations as an abstract
 *       JUnit class, one subclass per implementation ({@link io.ext4j.testkit.ReadOnlyBlockDeviceContract}
 *       for one with a read-only mode, adding what a read-only device owes).
 *   <li>Determinism: {@link io.ext4j.testkit.Seeds} (printed, replayable seeds) and
 *       {@link io.ext4j.testkit.ManualClock}.
 *   <li>Kernel fixtures: {@link io.ext4j.testkit.KernelFixtures} (power-cut images whose journal
 *       needs recovery) and {@link io.ext4j.testkit.KernelFsFixtures} (trees the kernel wrote, with
 *       the {@link io.ext4j.testkit.FsManifest} of what it showed in them), made by scripts in
 *       {@code scripts/} and stored gzip'd in the resources.
 *   <li>The namespace race: {@link io.ext4j.testkit.NamespaceWorkload}, one concurrent program of
 *       path calls run through every adapter (the engine's VFS, java.nio, a FUSE mount) and on
 *       the JDK's own file system, with {@link io.ext4j.testkit.PathOps} for the java.nio ones.
 * </ul>
 *
 * Not here: other workload generators and oracles for the journal or filesystem; they live with
 * the module they test.
 */
package io.ext4j.testkit;
