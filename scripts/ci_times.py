#!/usr/bin/env python3
"""The CI section's figures, from a timed run of the test suite.

Run the suite as CI does (cargo-nextest prints each test's time), timed:

    start=$(date +%s); bash .ci/run > ci.log 2>&1; \
        echo "wall_s=$(( $(date +%s) - start ))" >> ci.log

then `python3 scripts/ci_times.py ci.log --commit HASH --update docs/ci.md`
writes the slowest tests and the wall time between docs/ci.md's ci-times
markers
(and prints the same table). Nothing here is typed by hand.
"""
import argparse
import re
import sys

BEGIN = "<!-- ci-times:begin (scripts/ci_times.py) -->"
END = "<!-- ci-times:end -->"


def parse(text):
    binary = None
    tests, binaries = [], []
    passed = failed = 0
    wall = None
    for line in text.splitlines():
        # cargo-nextest: "PASS [  12.345s] (3/365) crate::binary test"
        m = re.match(r"\s*(PASS|FAIL|SIGSEGV|SIGABRT|TIMEOUT)\s*\[\s*([0-9.]+)s\]\s*(?:\(\s*\d+/\s*\d+\)\s*)?(\S+)\s+(\S+)", line)
        if m:
            ok = m.group(1) == "PASS"
            tests.append((float(m.group(2)), m.group(3), m.group(4), "ok" if ok else "FAILED"))
            passed += ok
            failed += not ok
            continue
        # libtest (cargo test -- -Z unstable-options --report-time)
        m = re.match(r"\s*Running (?:unittests )?\S+ \((\S+)\)", line)
        if m:
            binary = m.group(1).split("/")[-1].rsplit("-", 1)[0]
            continue
        m = re.match(r"test (\S+) \.\.\. (ok|FAILED) <([0-9.]+)s>", line)
        if m:
            tests.append((float(m.group(3)), binary, m.group(1), m.group(2)))
            continue
        m = re.match(r"test result: (ok|FAILED)\. (\d+) passed; (\d+) failed.*finished in ([0-9.]+)s", line)
        if m:
            passed += int(m.group(2))
            failed += int(m.group(3))
            binaries.append((float(m.group(4)), binary))
            continue
        m = re.match(r"wall_s=(\d+)", line)
        if m:
            wall = int(m.group(1))
    return tests, binaries, passed, failed, wall


def table(tests, binaries, passed, failed, wall, commit, n):
    out = []
    mins = f"{wall / 60:.1f} min" if wall is not None else "not recorded"
    out.append(
        f"`scripts/test.sh` (what `.ci/run` runs) on a clean clone of {commit}, "
        f"2 cores, the tools installed: **{wall:,} s ({mins})**, "
        f"{passed} tests passed, {failed} failed (nextest: two at a time across "
        f"every test binary; then the doc tests)."
        if wall is not None
        else f"{passed} tests passed, {failed} failed (wall time not recorded)."
    )
    out.append("")
    out.append(f"The {n} slowest tests (wall time of each, as the test runner reports it):")
    out.append("")
    out.append("| test | binary | s |")
    out.append("|---|---|---|")
    for s, b, t, _ in sorted(tests, key=lambda x: -x[0])[:n]:
        out.append(f"| `{t}` | `{b}` | {s:,.1f} |")
    per = {}
    for s, b, _, _ in tests:
        per[b] = per.get(b, 0.0) + s
    out.append("")
    out.append("Each test binary's tests, their times added up (the work, not the wall time):")
    out.append("")
    out.append("| binary | tests | s |")
    out.append("|---|---|---|")
    count = {}
    for _, b, _, _ in tests:
        count[b] = count.get(b, 0) + 1
    for b, s in sorted(per.items(), key=lambda x: -x[1])[:n]:
        out.append(f"| `{b}` | {count[b]} | {s:,.1f} |")
    out.append("")
    out.append(f"All tests' times added up: {sum(per.values()):,.0f} s.")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log", help="the timed run's output")
    ap.add_argument("--commit", required=True, help="the commit the run tested")
    ap.add_argument("--top", type=int, default=10, help="how many of the slowest (default 10)")
    ap.add_argument("--update", metavar="FILE", help="rewrite the part between the markers in FILE")
    a = ap.parse_args()
    try:
        text = open(a.log, encoding="utf-8", errors="replace").read()
    except OSError as e:
        sys.exit(f"ci_times: {a.log}: {e}")
    tests, binaries, passed, failed, wall = parse(text)
    if not tests:
        sys.exit(f"ci_times: {a.log}: no per-test times (see the module doc for the run)")
    md = table(tests, binaries, passed, failed, wall, a.commit, a.top)
    print(md, end="")
    if a.update:
        doc = open(a.update, encoding="utf-8").read()
        if BEGIN not in doc or END not in doc:
            sys.exit(f"ci_times: {a.update} has no {BEGIN} ... {END} markers")
        head, rest = doc.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        open(a.update, "w", encoding="utf-8").write(head + BEGIN + "\n" + md + END + tail)


if __name__ == "__main__":
    main()
