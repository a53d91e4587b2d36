/**
 * The {@code ext4j} command line ({@link io.ext4j.cli.Main}): mkfs, fsck, file commands, the
 * journal's tools, the FUSE mount and the benchmarks. An application module; picocli reads its
 * commands' annotations reflectively.
 */
module io.ext4j.cli {
  requires io.ext4j.bench;
  requires io.ext4j.tools;
  requires info.picocli;
  requires com.fasterxml.jackson.databind; // journal dump --json
  requires me.tongfei.progressbar;

  opens io.ext4j.cli to info.picocli;
}
