#!/usr/bin/env python3
"""Reads xfstests' ./check output for scripts/xfstests/run.sh.

  summarize.py chunk CHECK_LOG EXIT_STATUS TEST...   one TSV line per test: name, verdict, seconds, reason
  summarize.py summary TESTS_TSV FS SECONDS FSCK_RC  the run's summary (counts, then lists)

Verdicts: passed, failed, notrun (with check's reason), hung (in a chunk that hit its timeout and
in none of check's summary lines). check names a test in "Ran:" whether it passed or failed,
in "Failures:" when it failed and in "Not run:" when it did not run.
"""
import collections
import re
import sys


def chunk(log, rc, tests):
    ran, notrun, failures = set(), set(), set()
    reasons, seconds = {}, {}
    test_line = re.compile(r'^(\S+/\d+)\s+(.*)$')
    with open(log, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            for key, dest in (('Ran:', ran), ('Not run:', notrun), ('Failures:', failures)):
                if line.startswith(key):
                    dest.update(line[len(key):].split())
            m = test_line.match(line)
            if m and m.group(1) in tests:
                name, rest = m.group(1), m.group(2)
                if '[not run]' in rest:
                    reasons[name] = rest.split('[not run]', 1)[1].strip()
                elif '[expunged]' in rest:
                    reasons[name] = 'expunged'
                elif 'output mismatch' in rest or '[failed' in rest or 'ran in' in rest:
                    reasons[name] = rest.strip()
                else:
                    secs = re.findall(r'(\d+)s', rest)
                    if secs:
                        seconds[name] = secs[-1]
    timed_out = rc in ('124', '137')
    for t in tests:
        if t in notrun:
            verdict = 'notrun'
        elif t in failures:
            verdict = 'failed'
        elif t in ran:
            verdict = 'passed'
        else:
            verdict = 'hung' if timed_out else 'notrun'
            reasons.setdefault(t, 'chunk timed out while it ran' if timed_out else 'check did not report it (exit %s)' % rc)
        print('\t'.join((t, verdict, seconds.get(t, ''), reasons.get(t, '').replace('\t', ' '))))


def summary(tsv, fs, total, fsck_rc):
    rows = [line.rstrip('\n').split('\t') for line in open(tsv) if line.strip()]
    by = collections.defaultdict(list)
    for r in rows:
        by[r[1]].append(r)
    print('xfstests on %s: %d tests, %d passed, %d failed, %d hung, %d not run (%d s)' % (
        fs, len(rows), len(by['passed']), len(by['failed']), len(by['hung']), len(by['notrun']), int(total)))
    print('e2fsck -fn of the test and scratch images afterwards: %s' % ('clean' if fsck_rc == '0' else 'exit ' + fsck_rc))
    for verdict in ('failed', 'hung'):
        if by[verdict]:
            print('%s: %s' % (verdict, ' '.join(r[0] for r in by[verdict])))
    reasons = collections.Counter(r[3] for r in by['notrun'])
    if reasons:
        print('not run, by reason:')
        for reason, n in reasons.most_common():
            print('  %4d  %s' % (n, reason))


if __name__ == '__main__':
    if sys.argv[1] == 'chunk':
        chunk(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        summary(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
