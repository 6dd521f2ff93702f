#!/usr/bin/env python3
"""Runs one msprobe command on a pseudo-terminal (script(1)) and checks what
a user would see there. Used by tests/progress_tty.sh.

    tty_run.py [checks] -- COMMAND...

The output is read as it comes, each chunk with its time, so that the
status line can be followed through the run. Checks:

  --through       the status line is drawn from the first second to the
                  end, by the run's own clock (the "| m:ss" each draw ends
                  with): the first draw in its first second, no second of
                  the run without a draw (so never 2 s without one), the
                  last draw in a phase of --last-phase; at most about ten
                  draws a second
  --last-phase P  with --through: the phases the last draw may show,
                  comma-separated (default: compress,advisor,finish, the
                  end of an xlsx compare)
  --jobs N        every draw is one line for the whole run ("k/N done")
  --warnings K    K warning lines, each at the start of a line of its own
                  (never after a piece of the status line), the first one
                  printed while the status line was on the terminal
  --silent        nothing at all is printed
  --screen TEXT   the final screen holds a line containing TEXT (repeatable)
  --before TEXT   a line containing TEXT (a result) is printed while the
                  run still draws its status line (a draw comes after it):
                  results come as their jobs finish, not all at the end
  --steady N      the job named on the line changes at most N times
  --eta           a draw says how long is left once a job has ended
  --exit N        the command's exit status (default 0)

Always: the status line is gone from the final screen. Prints one line of
figures (time, draws, draws per second, longest gap as read, seconds of the
run with a draw). Exit status 1 with a line per failed check.

Why the run's own clock: the times at which this script reads the draws
include the delays of script(1) and of this reader, which a loaded machine
stretches to seconds (a shared CI machine failed "first draw within 1 s"
that way); the seconds msprobe prints are when it drew.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import time

PREFIX = b"msprobe compare:"
STATUS_END = re.compile(rb"\| \d+:\d\d(:\d\d)?(, \d+:\d\d(:\d\d)? left)?$")
# the job named on a draw: "| rank1 load 45%"
NAMED = re.compile(rb"done \| (\S+) ")
# the run's clock, before any time left: "| 1:05" or "| 1:05, 0:20 left"
CLOCK = re.compile(rb"\| (?:(\d+):)?(\d+):(\d\d)(?:, \d+:\d\d(?::\d\d)? left)?$")


def clock(text):
    """The seconds of the run a draw shows ("| 1:05" is 65)."""
    h, m, sec = CLOCK.search(text).groups()
    return int(h or 0) * 3600 + int(m) * 60 + int(sec)


def run(cmd):
    """(exit status, output bytes, [(seconds, end offset)] per chunk, seconds)."""
    # script -e: its exit status is the command's; -f: output as it comes
    proc = subprocess.Popen(["script", "-qefc", cmd, "/dev/null"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t0 = time.monotonic()
    out, chunks = bytearray(), []
    fd = proc.stdout.fileno()
    while True:
        data = os.read(fd, 65536)
        if not data:
            break
        out += data
        chunks.append((time.monotonic() - t0, len(out)))
    rc = proc.wait()
    return rc, bytes(out), chunks, time.monotonic() - t0


def screen(out):
    """The lines a terminal shows: CR returns, ESC[K erases to the end."""
    lines, line, col = [], bytearray(), 0
    i = 0
    while i < len(out):
        c = out[i:i + 1]
        if c == b"\r":
            col = 0
        elif out.startswith(b"\x1b[K", i):
            del line[col:]
            i += 2
        elif c == b"\n":
            lines.append(bytes(line))
            line, col = bytearray(), 0
        else:
            if col < len(line):
                line[col:col + 1] = c
            else:
                line += c
            col += 1
        i += 1
    if line:
        lines.append(bytes(line))
    return lines


def draws(out):
    """Offsets and texts of the status line draws: "\\r<text>\\x1b[K"."""
    found = []
    for m in re.finditer(rb"\r(msprobe compare:[^\r\n\x1b]*)\x1b\[K", out):
        if STATUS_END.search(m.group(1)):
            found.append((m.start(), m.group(1)))
    return found


def time_at(chunks, offset):
    for t, end in chunks:
        if offset < end:
            return t
    return chunks[-1][0] if chunks else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--through", action="store_true")
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--warnings", type=int)
    ap.add_argument("--silent", action="store_true")
    ap.add_argument("--screen", action="append", default=[])
    ap.add_argument("--exit", type=int, default=0)
    ap.add_argument("--before", metavar="TEXT")
    ap.add_argument("--steady", type=int)
    ap.add_argument("--eta", action="store_true")
    ap.add_argument("--last-phase", default="compress,advisor,finish")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    rc, out, chunks, total = run(" ".join(shlex.quote(x) for x in cmd))
    faults = []
    if rc != a.exit:
        faults.append(f"exit status {rc}, expected {a.exit}")
    d = draws(out)
    times = [time_at(chunks, off) for off, _ in d]
    gaps = [b - x for x, b in zip(times, times[1:])]
    rate = len(d) / total if total else 0
    secs = [clock(t) for _, t in d]
    print(f"     {total:.2f} s, {len(d)} draws, {rate:.1f}/s, longest gap as read "
          f"{max(gaps) if gaps else 0:.2f} s, first read {times[0] if times else 0:.2f} s; "
          f"run's clock: {secs[0] if secs else '-'} to {secs[-1] if secs else '-'} s")
    lines = screen(out)
    if a.silent and out:
        faults.append(f"printed {len(out)} bytes: {out[:200]!r}")
    if a.through:
        if not d:
            faults.append("no status line drawn")
        else:
            if secs[0] != 0:
                faults.append(f"the first draw shows {d[0][1]!r}, not the run's first second")
            skips = [(x, y) for x, y in zip(secs, secs[1:]) if y > x + 1]
            if skips:
                faults.append(f"no draw from {skips[0][0]} s to {skips[0][1]} s of the run")
            if any(y < x for x, y in zip(secs, secs[1:])):
                faults.append("the run's clock goes back")
            last = d[-1][1]
            if not any(f" {p} ".encode() in last + b" " for p in a.last_phase.split(",")):
                faults.append(f"the last draw {last!r} is not in a phase of {a.last_phase}")
            per_second = len(d) / (secs[-1] - secs[0] + 1)
            if per_second > 11:
                faults.append(f"{per_second:.1f} draws a second of the run")
    if a.jobs:
        bad = [t for _, t in d if t.count(PREFIX) != 1 or f"/{a.jobs} done".encode() not in t]
        if bad:
            faults.append(f"{len(bad)} draws are not one line for the run, e.g. {bad[0]!r}")
        if not d:
            faults.append("no status line drawn")
    if a.warnings is not None:
        shown = [ln for ln in lines if b"warning:" in ln]
        if len(shown) != a.warnings:
            faults.append(f"{len(shown)} warning lines, expected {a.warnings}")
        for ln in shown:
            if not ln.startswith(b"msprobe compare: warning: "):
                faults.append(f"a warning shares its line: {ln!r}")
        # in the byte stream: right after a newline or after the line was erased
        for m in re.finditer(rb"msprobe compare: warning: ", out):
            before = out[max(0, m.start() - 4):m.start()]
            if m.start() and not (before.endswith(b"\n") or before == b"\r\x1b[K"):
                faults.append(f"a warning follows {out[max(0, m.start() - 60):m.start()]!r}")
        first = out.find(b"msprobe compare: warning: ")
        if first >= 0 and not any(off < first for off, _ in d):
            faults.append("no status line was on the terminal before the first warning (the check proves nothing)")
    if a.before:
        # which job the later draws name depends on the scheduling; that
        # some draw comes after the result does not
        at = out.find(a.before.encode())
        if at < 0:
            faults.append(f"no line contains '{a.before}'")
        elif not any(off > at for off, _ in d):
            faults.append(f"no draw after '{a.before}': results wait for the last job")
    if a.steady is not None:
        named = [m.group(1) for _, t in d for m in [NAMED.search(t)] if m]
        changes = sum(1 for x, y in zip(named, named[1:]) if x != y)
        print(f"     the named job changed {changes} times in {len(named)} draws")
        if changes > a.steady:
            faults.append(f"the named job changed {changes} times, more than {a.steady}")
    if a.eta and not any(b" left" in t for _, t in d):
        faults.append("no draw says how long is left")
    for text in a.screen:
        if not any(text.encode() in ln for ln in lines):
            faults.append(f"the screen lacks '{text}'")
    left = [ln for ln in lines if ln.startswith(PREFIX) and STATUS_END.search(ln)]
    if left:
        faults.append(f"a status line is left on the screen: {left[0]!r}")
    if any(ln.count(PREFIX) > 1 for ln in lines):
        faults.append("two status lines share a line of the screen")
    for f in faults:
        print(f"     {f}")
    if faults:
        for ln in lines[-8:]:
            print(f"     | {ln.decode(errors='replace')}")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
