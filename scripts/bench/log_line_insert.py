"""What one line of the event log costs SQLite to insert, counted in instructions.

The machine's timings move by a third from hour to hour, so a change worth a few percent of a
notification cannot be seen in `cashier-bench server`'s rates. Valgrind's instruction count does not
move: this script builds the `events` table as the SQLite store's migrations leave it (one
variant per schema), writes the same duplicate-notification lines into it the way the server's
writer does (batches of 25, each line in its own savepoint, 200 orders), under `valgrind
--tool=callgrind`, and prints instructions and bytes (database and WAL) per line.

    python3 scripts/bench/log_line_insert.py [lines]

Variants: `005` — `events_transition` on every line, as migration 005 made it; `017` — only the
lines that moved an order (migration 017); `017-no-autoincrement` — also without `AUTOINCREMENT`
(measured, not made: it needs the table rebuilt). The Python loop's own instructions are in every
variant alike, so the differences are SQLite's.
"""

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

VARIANTS = {
    "005": ("AUTOINCREMENT", ""),
    "017": ("AUTOINCREMENT", " WHERE to_status IS NOT NULL"),
    "017-no-autoincrement": ("", " WHERE to_status IS NOT NULL"),
}


def write(variant: str, path: str, lines: int) -> None:
    autoincrement, where = VARIANTS[variant]
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.executescript(
        f"""
        CREATE TABLE events (
            sequence INTEGER PRIMARY KEY {autoincrement}, order_id TEXT NOT NULL, kind TEXT NOT NULL, from_status TEXT,
            to_status TEXT, detail TEXT NOT NULL, body_sha256 TEXT, created_at INTEGER NOT NULL);
        CREATE INDEX events_order ON events(order_id, sequence);
        CREATE INDEX events_transition ON events(to_status, created_at){where};
        """
    )
    orders = [f"ord_{i:08x}" for i in range(200)]
    detail = json.dumps({"payment": "pay_0123456789abcdef", "method": "wechat.native", "provider": "wechat_v2"})
    for batch in range(lines // 25):
        db.execute("BEGIN")
        for k in range(25):
            db.execute("SAVEPOINT line")
            db.execute(
                "INSERT INTO events (order_id, kind, from_status, to_status, detail, body_sha256, created_at)"
                " VALUES (?, ?, NULL, NULL, ?, ?, ?)",
                (orders[(batch * 25 + k) % 200], "notification.duplicate", detail, "ab" * 32, 1_800_000_000_000 + batch),
            )
            db.execute("RELEASE line")
        db.execute("COMMIT")
    db.close()


def measure(variant: str, lines: int, folder: str) -> tuple[float, float]:
    out = os.path.join(folder, f"callgrind.{variant}")
    path = os.path.join(folder, f"{variant}.db")
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__, "--write", variant, path, str(lines)],
        check=True, capture_output=True,
    )
    with open(out) as f:
        total = next(int(line.split()[1]) for line in f if line.startswith("summary:") or line.startswith("totals:"))
    size = sum(os.path.getsize(path + suffix) for suffix in ("", "-wal") if os.path.exists(path + suffix))
    return total / lines, size / lines


def main() -> None:
    if sys.argv[1:2] == ["--write"]:
        write(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    lines = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    folder = tempfile.mkdtemp(prefix="log-line-insert.")
    try:
        base = None
        for variant in VARIANTS:
            instructions, size = measure(variant, lines, folder)
            base = base or instructions
            print(f"log-line variant={variant} instructions_per_line={instructions:.0f} "
                  f"vs_005={instructions - base:+.0f} bytes_per_line={size:.0f} lines={lines}")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
