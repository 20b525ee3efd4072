#!/usr/bin/env python3
"""The engine suite: the task store at scale.

build/<tree>/bench/engine_scale inserts --tasks active tasks into one project through the
scheduler (batches of 10,000, a commit after each), dispatches --dispatch of them to a fetcher
that answers at once (select, then an ok outcome for each), and reopens the store to time a
restart's first dispatch. Reported: inserts/s, dispatches/s, RSS after the inserts and after the
dispatches, and the seconds to the first dispatch after the restart. pyspider's scheduler, the
peer these figures answer (8 GB at 13 M tasks, hours to restart), does not run on Python 3.11,
so the cases carry squall's figure alone.

Run by scripts/bench.py (`make bench SUITE=engine`) as
    python3 bench/engine_bench.py --build build/release [--tasks N]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/release", help="the release build tree")
    ap.add_argument("--tasks", type=int, default=10_000_000)
    ap.add_argument("--dispatch", type=int, default=1_000_000)
    args = ap.parse_args()
    tool = os.path.abspath(os.path.join(args.build, "bench", "engine_scale"))
    if not os.path.exists(tool):
        sys.exit(f"engine bench: {tool} is missing; build the engine_scale target")
    with tempfile.TemporaryDirectory(prefix="squall-engine-") as work:
        print(f"engine bench: {args.tasks:,} tasks into a store in {work}", file=sys.stderr)
        out = subprocess.run([tool, "--store", os.path.join(work, "tasks.db"), "--tasks",
                              str(args.tasks), "--dispatch", str(args.dispatch)],
                             check=True, stdout=subprocess.PIPE, text=True).stdout
    r = json.loads(out)
    n = f"{args.tasks / 1e6:g} M active tasks"
    print(json.dumps([
        {"case": f"task store, {n}: inserts (batched)", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["insert_per_s"]}},
        {"case": f"task store, {n}: dispatch to an instant fetcher", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["dispatch_per_s"]}},
        {"case": f"task store, {n}: inserts per CPU second", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["insert_per_cpu_s"]}},
        {"case": f"task store, {n}: dispatches per CPU second", "unit": "tasks/s",
         "higher_is_better": True, "values": {"squall": r["dispatch_per_cpu_s"]}},
        {"case": f"task store, {n}: RSS after the inserts", "unit": "MiB",
         "values": {"squall": r["rss_mib_inserted"]}},
        {"case": f"task store, {n}: RSS after the dispatches", "unit": "MiB",
         "values": {"squall": r["rss_mib_dispatched"]}},
        {"case": f"task store, {n}: first dispatch after a restart", "unit": "s",
         "values": {"squall": r["first_dispatch_s"]}},
    ], indent=1))


if __name__ == "__main__":
    main()
