package io.ext4j.jbd2;

import io.ext4j.jbd2.JournalCrashStateTest.Workload;
import io.ext4j.testkit.Seeds;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Long crash-state runs, skipped by default: {@code ./mvnw verify -Psoak} (or
 * {@code -Dext4j.soak=true}, which also scales up the crash and stress suites). Each run derives its
 * workloads' seeds from one printed seed, so {@code -Dext4j.seed=N} replays all of them.
 */
@Tag("soak")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.HOURS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JournalSoakTest {

  @Test
  void manySeeds_longWorkloads_withTheJournalsCacheAndATinyOne_everyCrashStateRecoversToAnAcknowledgedPrefix()
      throws Exception {
    long seed = Seeds.seed();
    for (int i = 0; i < 8; i++) {
      long s = Seeds.derive(seed, i);
      boolean async = i % 2 == 1;
      Workload w = new Workload("soak-" + i, 2 + i % 3, 1200, async, i * 1_000_000 - 500, i % 4 < 2
          ? BatchingPolicies.NONE : BatchingPolicies.defaultPolicy(), async);
      JournalCrashStateTest.checkAllStates(s, i % 4 == 0 || i % 4 == 3 ? w.withCache(16) : w);
    }
  }
}
