package io.ext4j.cli;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.ext4j.fs.Ext4FileSystem;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The project's layering, read from the compiled classes of every module: block devices at the
 * bottom, the journal on them, the engine on the journal, the offline tools (mkfs, fsck, the tree
 * copier) on the engine, the adapters (java.nio, FUSE) on the engine (and nio on the tools, to make
 * an image), the benchmarks on those, the CLI on top; nothing reaches up or sideways. And the
 * adapters hold no file-system rules: they reach files through the VFS ({@code io.ext4j.fs.vfs.Vfs},
 * where path walks, permissions, atomicity and inode lifetimes live), never through the engine's
 * inode-level namespace and attribute calls, which apply none of those rules. The offline tools are
 * no adapter: like mke2fs -d writing inodes through libext2fs, the tree copier may set what no
 * system call sets (a source file's change time, on a new image).
 */
@Tag("fast")
class ArchitectureTest {
  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.ext4j");

  /** The engine's inode-level calls that apply no VFS rule (permissions, locking order, lifetimes). */
  private static final Set<String> INODE_LEVEL = Set.of("lookup", "mknod", "symlink", "mkdir", "link", "unlink", "rmdir",
      "rename", "setattr", "readdir", "open", "getxattr", "setxattr", "listxattr", "removexattr", "hasXattr");

  @Test
  void modulesDependOnlyDownward() {
    layeredArchitecture().consideringOnlyDependenciesInLayers()
        .layer("block").definedBy("io.ext4j.block..")
        .layer("journal").definedBy("io.ext4j.jbd2..")
        .layer("engine").definedBy("io.ext4j.fs..")
        .layer("tools").definedBy("io.ext4j.tools..")
        .layer("nio").definedBy("io.ext4j.nio..")
        .layer("fuse").definedBy("io.ext4j.fuse..")
        .layer("bench").definedBy("io.ext4j.bench..")
        .layer("cli").definedBy("io.ext4j.cli..")
        .whereLayer("cli").mayNotBeAccessedByAnyLayer()
        .whereLayer("bench").mayOnlyBeAccessedByLayers("cli")
        .whereLayer("nio").mayOnlyBeAccessedByLayers("bench", "cli")
        .whereLayer("fuse").mayOnlyBeAccessedByLayers("bench", "cli")
        .whereLayer("tools").mayOnlyBeAccessedByLayers("nio", "bench", "cli")
        .whereLayer("engine").mayOnlyBeAccessedByLayers("tools", "nio", "fuse", "bench", "cli")
        .whereLayer("journal").mayOnlyBeAccessedByLayers("engine", "tools", "nio", "fuse", "bench", "cli")
        .check(CLASSES);
  }

  @Test
  void theJournalsInternalsStayInside() {
    noClasses().that().resideOutsideOfPackage("io.ext4j.jbd2..")
        .should().dependOnClassesThat().resideInAPackage("io.ext4j.jbd2.internal..")
        .check(CLASSES);
  }

  @Test
  void adaptersReachFilesThroughTheVfsOnly() {
    DescribedPredicate<JavaMethodCall> inodeLevel = DescribedPredicate.describe("an inode-level call on Ext4FileSystem",
        call -> call.getTargetOwner().isEquivalentTo(Ext4FileSystem.class) && INODE_LEVEL.contains(call.getName())
            && !call.getTarget().getRawParameterTypes().isEmpty()
            && call.getTarget().getRawParameterTypes().getFirst().isEquivalentTo(long.class)); // by inode number, not open(image)
    noClasses().that().resideInAnyPackage("io.ext4j.nio..", "io.ext4j.fuse..", "io.ext4j.cli..")
        .should().callMethodWhere(inodeLevel)
        .because("the VFS applies the rules (permissions, parent locks, lifetimes) the inode-level API does not")
        .check(CLASSES);
  }
}
