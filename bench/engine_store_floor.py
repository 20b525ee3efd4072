#!/usr/bin/env python3
"""The floor under engine_scale's inserts: the same rows into the task store's schema, with
SQLite's own settings as SqliteStore sets them, and no squall code in the way.

  python3 bench/engine_store_floor.py --tasks 1000000 --variant replace

Variants: `nokey` is what the task store writes for a new task (a plain INSERT into the table
and its ready indexes; the keys of new tasks are held in memory and merged into the key index
in batches); the others add one index of every key, as earlier layouts did: `replace` with
INSERT OR REPLACE and the rowid looked up by key, `insert` a plain INSERT, `sorted` the same with
each batch in key order. Batches of 10,000 rows, one transaction each, as engine_scale commits. Prints rows/s on the wall clock and per
CPU-second (what a loaded machine still measures), not counting the time Python takes to build
the rows.
"""
import argparse
import hashlib
import os
import sqlite3
import time

SCHEMA = """
CREATE TABLE tasks (project INTEGER NOT NULL, key INTEGER NOT NULL, taskid TEXT NOT NULL,
  url TEXT NOT NULL, status INTEGER NOT NULL, rank INTEGER NOT NULL, exetime REAL NOT NULL,
  seq INTEGER NOT NULL, retries INTEGER NOT NULL, retried INTEGER NOT NULL, age REAL NOT NULL,
  itag TEXT, flags INTEGER NOT NULL, fetch TEXT, process TEXT, track TEXT,
  lastcrawltime REAL NOT NULL, updatetime REAL NOT NULL);
CREATE INDEX tasks_ready ON tasks(project, rank, seq) WHERE status = 1 AND exetime = 0;
CREATE INDEX tasks_delayed ON tasks(project, exetime, seq) WHERE status = 1 AND exetime > 0;
"""
COLUMNS = ("project, key, taskid, url, status, rank, exetime, seq, retries, retried, age, itag, "
           "flags, fetch, process, track, lastcrawltime, updatetime")
VALUES = "?1, ?2, ?3, ?4, 1, 0, 0, ?5, 3, 0, -1, NULL, 0, NULL, NULL, NULL, 0, 1.7e9"
REPLACE = (f"INSERT OR REPLACE INTO tasks(rowid, {COLUMNS}) VALUES ((SELECT rowid FROM tasks "
           f"WHERE project = ?1 AND key = ?2 AND taskid = ?3), {VALUES})")
INSERT = f"INSERT INTO tasks({COLUMNS}) VALUES ({VALUES})"


def remove(path):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def rows(lo, hi, by_key):
    out = []
    for i in range(lo, hi):
        url = f"http://h{i % 1000}.example/page/{i}"
        taskid = hashlib.md5(url.encode()).hexdigest()
        out.append((1, int(taskid[:16], 16) - (1 << 63), taskid, url, i))
    if by_key:
        out.sort(key=lambda r: r[1])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=1_000_000)
    ap.add_argument("--variant", choices=["replace", "insert", "sorted", "nokey"],
                    default="replace")
    ap.add_argument("--cache-mib", type=int, default=64)
    ap.add_argument("--store", default="/tmp/squall-engine-floor.db")
    args = ap.parse_args()
    remove(args.store)
    db = sqlite3.connect(args.store, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", f"cache_size=-{args.cache_mib * 1024}",
                   "wal_autocheckpoint=16384"):
        db.execute("PRAGMA " + pragma)
    db.executescript(SCHEMA)
    if args.variant != "nokey":
        db.execute("CREATE INDEX tasks_key ON tasks(project, key)")
    sql = REPLACE if args.variant == "replace" else INSERT
    building = building_cpu = 0.0
    start = time.perf_counter()
    start_cpu = time.process_time()
    for lo in range(0, args.tasks, 10_000):
        t = time.perf_counter()
        c = time.process_time()
        batch = rows(lo, min(args.tasks, lo + 10_000), args.variant == "sorted")
        building += time.perf_counter() - t
        building_cpu += time.process_time() - c
        db.execute("BEGIN")
        db.executemany(sql, batch)
        db.execute("COMMIT")
    wall = time.perf_counter() - start - building
    cpu = time.process_time() - start_cpu - building_cpu
    print(f'{{"variant": "{args.variant}", "tasks": {args.tasks}, "insert_per_s": '
          f'{args.tasks / wall:.0f}, "insert_per_cpu_s": {args.tasks / cpu:.0f}}}')
    db.close()
    remove(args.store)


if __name__ == "__main__":
    main()
