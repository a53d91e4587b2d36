package io.ext4j.fs.engine;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The engine's package graph, read from its compiled classes. Its packages form no cycle: the
 * codecs ({@code format}) at the bottom; the metadata store ({@code meta}); allocation, inodes and
 * extent trees; the context one open filesystem shares ({@code context}: {@code Fs}, features, the
 * superblock's state); the structures that use it (directories, files, xattrs, orphans, fast-commit
 * replay); the namespace code ({@code namespace}) above them; the VFS at the top. The API package
 * {@code io.ext4j.fs} is both the engine's value types (errors, attributes, flags), which every
 * package may use, and its façade ({@code Ext4FileSystem}), which within the engine only the VFS reaches.
 */
@Tag("fast")
class EnginePackagesTest {
  private static final JavaClasses ENGINE = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.ext4j.fs");

  @Test
  void theEnginesPackagesFormNoCycle() {
    slices().matching("io.ext4j.fs.(*)..").should().beFreeOfCycles().check(ENGINE);
  }

  @Test
  void withinTheEngineOnlyTheVfsReachesTheFacade() {
    noClasses().that().resideInAPackage("io.ext4j.fs.*..")
        .and().resideOutsideOfPackage("io.ext4j.fs.vfs..")
        .should().dependOnClassesThat().haveFullyQualifiedName("io.ext4j.fs.Ext4FileSystem")
        .check(ENGINE);
  }
}
