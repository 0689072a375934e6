"""Service benchmarks, run on demand: `python benchmarks/service.py throughput|latency|scale|memory [flags]`.

Each starts its own mail rig (Dovecot + SMTP front end) where it needs one, prints its
figures with the machine they came from, and cleans up. `--help` after a name lists the
flags for the full sizes of the issue; the defaults take a few minutes at most.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import service_latency, service_memory, service_scale, service_throughput  # noqa: E402

BENCHMARKS = {
    "throughput": service_throughput,
    "latency": service_latency,
    "scale": service_scale,
    "memory": service_memory,
}

if __name__ == "__main__":
    names = sys.argv[1:2]
    if not names or names[0] not in BENCHMARKS:
        sys.exit(f"usage: python benchmarks/service.py {{{'|'.join(BENCHMARKS)}}} [--help | flags]")
    BENCHMARKS[names[0]].main(sys.argv[2:])
