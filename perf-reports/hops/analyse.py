#!/usr/bin/env python3
"""analyse.py <trace.txt> <worktree> [background-thread-prefix ...]
Classes on the path: dev.offcache classes from src/main of <worktree> whose code ran in the window, on any thread
but the background threads named and (unless WITH_MAIN=1) the probe's own thread 'main'; test-scope classes are
listed apart, not counted. Root entries: where work arrived on a thread from non-offcache code (a Netty callback, a
pool task, a future's continuation), grouped by thread and entry point with their two nearest callers. CALLS=<regex>:
also the per-thread call counts of the methods matching it (e.g. 'BlockStream.execute$', the engine's hand-off of a
drain to the consumer's executor)."""
import sys, os, re, collections
trace, wt = sys.argv[1], sys.argv[2]
background = sys.argv[3:]
section = None
by_thread = {}
roots = []
calls = []
for line in open(trace):
    line = line.rstrip("\n")
    if line.startswith("# "):
        section = line; continue
    if section.startswith("# root"):
        roots.append(line)
    elif section.startswith("# calls by thread"):
        calls.append(line[2:])
    elif section.startswith("# classes by thread"):
        t, rest = line.split(" (", 1)
        by_thread[t] = rest.split(": ", 1)[1].strip("[]").split(", ")
def main_source(c):
    top = c.split("$")[0]
    rel = top.replace(".", "/") + ".java"
    for mod in os.listdir(wt):
        if os.path.exists(os.path.join(wt, mod, "src/main/java", rel)):
            return mod
    return None
path = set(); test = set(); skipped = {}
for t, cs in by_thread.items():
    if (t == "main" and not os.environ.get("WITH_MAIN")) or any(t.startswith(b) for b in background):
        skipped[t] = cs; continue
    for c in cs:
        (path if main_source(c) else test).add(c)
groups = collections.defaultdict(list)
for c in sorted(path):
    groups[main_source(c) + " " + ".".join(c.split(".")[:-1])].append(c.split(".")[-1])
tops = {c.split("$")[0] for c in path}
print(f"classes on the path: {len(path)} ({len(tops)} top-level, {len(path)-len(tops)} nested)")
for g, cs in sorted(groups.items()):
    print(f"  {g} ({len(cs)}): {', '.join(cs)}")
print("test-scope classes run on path threads (not counted):", sorted(test))
print("threads not counted:", {t: len(c) for t, c in skipped.items()})
print("threads counted:", sorted(t for t in by_thread if t not in skipped))
print("root entries by thread and entry point (count):")
cnt = collections.Counter()
for r in roots:
    m = re.match(r"(\d+) (.*?) \| (.*?) \| (.*)", r)
    if m:
        last = (m.group(2), m.group(3), " < ".join(m.group(4).split(" < ")[:2]))
        cnt[last] += 1
    elif r.strip().startswith("(x"):
        cnt[last] += int(r.strip()[2:-1]) - 1
for (t, e, c), n in sorted(cnt.items()):
    if t == "main" or any(t.startswith(b) for b in background):
        continue
    print(f"  {n:4d}  {t} | {e} | {c}")
if os.environ.get("CALLS"):
    print("calls matching", os.environ["CALLS"] + ":")
    for c in calls:
        if re.search(os.environ["CALLS"], c):
            print("  ", c)
