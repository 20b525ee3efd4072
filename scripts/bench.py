#!/usr/bin/env python3
"""Runs squall's benchmark suites and their peers side by side, prints ratios.

Each bench/<suite>[_<part>]_bench.cpp binary (bench_<suite>[_<part>]) names its cases
"<case>/<implementation>"; a suite is all the binaries of its name. A suite measured with
programs of its own (wrk against servers, say) is a script bench/<suite>[_<part>]_bench.py:
run as `python3 <script> --build <tree>`, it reports progress on stderr and prints on stdout a
JSON list of {"case", "unit", "higher_is_better", "values": {implementation: value}}.
Every implementation other than squall is a peer; every ratio printed is oriented so that
above 1 means squall is ahead.
A Google Benchmark case that counts bytes is reported in MB/s, any other in ns per item.
Writes build/bench/results.json: [{"case", "unit", "higher_is_better", "squall", "peers"}].
With --baseline TREE (the release tree of an earlier commit, built from its own checkout), each
suite runs there first and its squall figures join the table as the peer "baseline", so a change
is measured against the code before it in the same run.
"""
import argparse
import json
import os
import subprocess
import sys

# Cases measured in a process of their own, by suite: (case, unit, {impl: argv suffix}).
SEPARATE = {
    "core": [
        ("1,000,000 tasks asleep", "MiB peak RSS",
         {"squall": ["--sleepers=squall", "1000000"], "asio": ["--sleepers=asio", "1000000"]}),
    ],
}


def run_suite(binaries, scripts, suite, build, min_time):
    cases = {}
    for binary in binaries:
        run_binary(binary, min_time, cases)
    for script in scripts:
        out = subprocess.run([sys.executable, script, "--build", build], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        for c in json.loads(out):
            cases[c["case"]] = {"unit": c["unit"], "values": c["values"],
                                "higher_is_better": c.get("higher_is_better", False)}
    for case, unit, impls in SEPARATE.get(suite, []):
        values = {}
        for impl, args in impls.items():
            r = subprocess.run([binaries[0]] + args, check=True, capture_output=True, text=True)
            values[impl] = float(r.stdout.strip().splitlines()[-1])
        cases[case] = {"unit": unit, "values": values}
    return cases


def run_binary(binary, min_time, cases):
    out = subprocess.run([binary, "--benchmark_format=json", f"--benchmark_min_time={min_time}"],
                         check=True, capture_output=True, text=True).stdout
    for b in json.loads(out)["benchmarks"]:
        name = b["name"].removesuffix("/real_time").removesuffix("/manual_time")
        case, _, impl = name.rpartition("/")
        if b.get("bytes_per_second"):
            entry = cases.setdefault(case, {"unit": "MB/s", "higher_is_better": True, "values": {}})
            entry["values"][impl] = b["bytes_per_second"] / 1e6
            continue
        ns = 1e9 / b["items_per_second"] if b.get("items_per_second") else b["real_time"]
        cases.setdefault(case, {"unit": "ns/op", "values": {}})["values"][impl] = ns


def find_benches(build):
    """The suites of a build tree: {suite: [binaries]}, {suite: [scripts of its checkout]}."""
    bench_dir = os.path.join(build, "bench")
    binaries, scripts = {}, {}
    for f in sorted(os.listdir(bench_dir)):
        if f.startswith("bench_"):
            suite = f[len("bench_"):].split("_")[0]
            binaries.setdefault(suite, []).append(os.path.join(bench_dir, f))
    # A build tree is <checkout>/build/<preset>: its scripts are the checkout's.
    source_bench = os.path.join(os.path.abspath(build), "..", "..", "bench")
    for f in sorted(os.listdir(source_bench)):
        if f.endswith("_bench.py"):
            scripts.setdefault(f.split("_")[0], []).append(os.path.join(source_bench, f))
    return binaries, scripts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/release", help="the release build tree")
    parser.add_argument("--suite", help="run only this suite (e.g. core)")
    parser.add_argument("--min-time", default="0.5", help="seconds per case (Google Benchmark)")
    parser.add_argument("--baseline", help="the release tree of an earlier commit to compare with")
    args = parser.parse_args()

    binaries, scripts = find_benches(args.build)
    base_binaries, base_scripts = find_benches(args.baseline) if args.baseline else ({}, {})
    suites = sorted(set(binaries) | set(scripts))
    if args.suite:
        if args.suite not in suites:
            sys.exit(f"bench: no suite '{args.suite}'; suites: {', '.join(suites)}")
        suites = [args.suite]

    results = []
    for suite in suites:
        before = {}
        if args.baseline:
            before = run_suite(base_binaries.get(suite, []), base_scripts.get(suite, []), suite,
                               args.baseline, args.min_time)
        cases = run_suite(binaries.get(suite, []), scripts.get(suite, []), suite,
                          args.build, args.min_time)
        for case, c in before.items():
            if case in cases and "squall" in c["values"]:
                cases[case]["values"]["baseline"] = c["values"]["squall"]
        peers = sorted({i for c in cases.values() for i in c["values"] if i != "squall"})
        header = ["case", "unit", "squall"] + peers + [f"vs {p}" for p in peers]
        rows = []
        for case, c in cases.items():
            v, higher = c["values"], c.get("higher_is_better", False)
            row = [case, c["unit"], f"{v.get('squall', float('nan')):.1f}"]
            row += [f"{v[p]:.1f}" if p in v else "-" for p in peers]
            for p in peers:
                if p in v and v.get("squall") and v[p]:
                    row.append(f"{(v['squall'] / v[p]) if higher else (v[p] / v['squall']):.2f}x")
                else:
                    row.append("-")
            rows.append(row)
            results.append({"case": case, "unit": c["unit"], "higher_is_better": higher,
                            "squall": v.get("squall"),
                            "peers": {p: v[p] for p in peers if p in v}})
        widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
        print(f"\nsuite {suite} (a ratio above 1 means squall is ahead)")
        for r in [header] + rows:
            print("  ".join(str(x).ljust(w) if i < 2 else str(x).rjust(w)
                            for i, (x, w) in enumerate(zip(r, widths))))

    os.makedirs("build/bench", exist_ok=True)
    with open("build/bench/results.json", "w") as f:
        json.dump(results, f, indent=2)
    print("\nwrote build/bench/results.json")


if __name__ == "__main__":
    main()
