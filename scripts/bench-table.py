"""Prints `make bench`'s one table: every target of issue 31 that a benchmark measured.

    python3 scripts/bench-table.py [DIR]

Each benchmark (benches/*.rs, scripts/bench-*.sh, python/bench/normalize.py) writes the
targets it measured to DIR/<bench>.tsv (default target/bench), one row a line: target,
measured, required, met or not met. This script lists them in one table, in the order
below, and names the benchmarks that have not written theirs (not run, or failed).
"""

from __future__ import annotations

import sys
from pathlib import Path

#: The benchmarks, in table order, with the command that measures each.
BENCHES = [
    ("normalize", "make bench-normalize"),
    ("recorder", "make bench-recorder"),
    ("batch", "make bench-batch"),
    ("peers", "make bench-peers"),
    ("stats-memory", "make bench-stats-memory"),
    ("python", "make bench-python"),
    ("read", "make bench-read"),
]


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "target/bench")
    rows, missing = [], []
    for bench, command in BENCHES:
        path = folder / f"{bench}.tsv"
        if not path.exists():
            missing.append(f"{bench} ({command})")
            continue
        for line in path.read_text().splitlines():
            if line.strip():
                rows.append(line.split("\t"))
    header = ["target (issue 31)", "measured", "required", ""]
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(4)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(row, widths)) + " |")
    met = sum(1 for r in rows if r[3] == "met")
    print(f"{met} of {len(rows)} targets met")
    if missing:
        print("not measured in this run: " + ", ".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
