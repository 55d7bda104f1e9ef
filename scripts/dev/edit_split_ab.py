#!/usr/bin/env python3
"""A/B of ``coder edit``'s time outside the request: two or more source trees, run by run in turn.

Each run is :func:`edit_split.run_once` with ``ROOT`` set to one tree (its ``coder`` is what the
spawned process imports), so the trees see the same machine load: A B, then B A, and so on. Prints
the median of every phase, ``outside``, wall and the child's CPU time (user + system) per tree and
mode over the runs after the first (a cold one, left out). Compile every tree first
(``python -m compileall -q TREE/coder``) and leave ``PYTHONDONTWRITEBYTECODE`` unset. Example, a copy
of ``main`` against this checkout, requests replayed (``edit_split.py --replay``'s double)::

    git archive main | tar -x -C /tmp/A
    python3 scripts/dev/edit_split_ab.py /tmp/A . --runs 11 --modes region,grammar \
        --attach http://127.0.0.1:8080 --replay /tmp/replies
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import edit_split

PHASES = ["python", "imports", "config", "probe", "tokenizer", "plan", "reading", "request", "steps", "stats", "checks",
          "git", "output", "other", "exit"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+", type=Path, help="source trees (each holds coder/)")
    parser.add_argument("--runs", type=int, default=9, help="warm runs per tree and mode (one cold run more)")
    parser.add_argument("--modes", default="region,full", help="comma-separated, as edit_split.py's")
    parser.add_argument("--attach", metavar="URL", required=True, help="the server")
    parser.add_argument("--replay", type=Path, metavar="DIR",
                        help="answer through edit_split.py's record-and-replay double (replay_server.py)")
    parser.add_argument("--out", type=Path, help="write the medians and every run's outside here (JSON)")
    args = parser.parse_args(argv)
    trees, modes = [t.resolve() for t in args.trees], args.modes.split(",")
    repo = edit_split.make_repo([edit_split.MODES[m][0] for m in modes])
    double = None
    if args.replay is not None:
        from replay_server import ReplayServer

        double = ReplayServer(args.attach, args.replay)
        args.attach = double.url
    runs: dict[tuple[Path, str], list[dict[str, Any]]] = {(t, m): [] for t in trees for m in modes}
    try:
        for i in range(args.runs + 1):
            for mode in modes:
                for tree in trees if i % 2 == 0 else trees[::-1]:
                    edit_split.ROOT = tree
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    run = edit_split.run_once(repo, mode, ["--attach", args.attach])
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    run["cpu"] = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                    if i > 0:
                        runs[(tree, mode)].append(run)
    finally:
        if double is not None:
            double.close()
    print(f"{'tree':<12}{'mode':<8}" + "".join(f"{n[:9]:>10}" for n in PHASES) + f"{'outside':>9}{'wall':>8}{'cpu':>7}")
    out = {}
    for mode in modes:
        for tree in trees:
            rs = runs[(tree, mode)]
            med = {n: statistics.median(float(r["phases"].get(n, 0.0)) for r in rs) for n in PHASES}
            row = {k: statistics.median(float(r[k]) for r in rs) for k in ("outside_s", "wall_s", "cpu")}
            out[f"{tree}:{mode}"] = {"phases": med, **row, "all_outside": [r["outside_s"] for r in rs]}
            print(f"{tree.name[:11]:<12}{mode:<8}" + "".join(f"{med[n]:>10.3f}" for n in PHASES)
                  + f"{row['outside_s']:>9.3f}{row['wall_s']:>8.3f}{row['cpu']:>7.3f}")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
