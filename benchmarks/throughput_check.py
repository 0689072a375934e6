"""The throughput benchmark's summary for both databases side by side, and its own check.

The check compares a run with the figures recorded in benchmarks/README.md, lines of the form

    check sqlite cpu_ratio 1.23

(database, figure, value), and fails on a regression of more than 20 %. Its figures are
ratios measured in the same run, which hold on a busy machine better than seconds do:
`cpu_ratio`, the daemon's CPU per move over the mail servers' (Dovecot and the SMTP front
end), and `wall_to_floor`, the daemon's wall time over the floor's (the same mail traffic
without pbem, `service_throughput.imap_floor` and the SMTP send).
"""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).with_name("README.md")
TOLERANCE = 0.20  # a figure more than 20 % above the recorded one is a regression
_LINE = re.compile(r"^\s*check\s+(sqlite|postgresql)\s+(\w+)\s+([0-9.]+)\s*$")

#: figure -> (the key in the run's figures, what it is)
FIGURES = {
    "cpu_ratio": ("cpu_ratio_to_mail_servers", "daemon CPU / mail servers' CPU"),
    "wall_to_floor": ("ratio_to_floor", "daemon wall time / the floor's"),
}

GOALS = {"sqlite": 0.6, "postgresql": 1.0}  # issue 31: the daemon's CPU per move / the mail servers'
WALL_GOAL = 1.2  # PostgreSQL's wall time per move within 1.2x of SQLite's


def recorded(readme: Path = README) -> dict[tuple[str, str], float]:
    """(database, figure) -> value, from the README's `check` lines."""
    found: dict[tuple[str, str], float] = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = _LINE.match(line)
        if match and match.group(2) in FIGURES:
            found[(match.group(1), match.group(2))] = float(match.group(3))
    return found


def problems(results: dict[str, dict[str, float]], readme: Path = README) -> list[str]:
    """The figures of this run that are more than TOLERANCE worse than the recorded ones."""
    bad = []
    for (database, figure), value in sorted(recorded(readme).items()):
        if database not in results:
            continue
        key, what = FIGURES[figure]
        now = results[database][key]
        if now > value * (1 + TOLERANCE):
            bad.append(f"{database}: {what} is {now:.2f}, recorded {value:.2f} (+{100 * (now / value - 1):.0f} %)")
    return bad


def summary(results: dict[str, dict[str, float]]) -> None:
    """The figures of every database run, side by side, with the goals of issue 31."""
    names = list(results)
    width = max(14, *(len(name) + 2 for name in names))
    print("side by side (per move):")
    print(f"  {'':<34}" + "".join(f"{name:>{width}}" for name in names))
    rows = [
        ("daemon CPU, ms", lambda f: f["cpu_ms_per_move"]),
        ("mail servers' CPU, ms", lambda f: f["mail_cpu_ms_per_move"]),
        ("daemon / mail servers", lambda f: f["cpu_ratio_to_mail_servers"]),
        ("the floor's CPU, ms", lambda f: f["floor_cpu_ms_per_move"]),
        ("floor / mail servers", lambda f: f["floor_cpu_ratio_to_mail_servers"]),
        ("daemon wall time, ms", lambda f: 1000 * f["seconds"] / f["moves"]),
        ("the floor's wall time, ms", lambda f: 1000 * f["floor_s"] / f["moves"]),
        ("daemon wall / floor's", lambda f: f["ratio_to_floor"]),
    ]
    for label, value in rows:
        print(f"  {label:<34}" + "".join(f"{value(results[name]):>{width}.2f}" for name in names))
    shares = sorted({key for f in results.values() for key in f if key.startswith("share_")},
                    key=lambda key: -max(f.get(key, 0.0) for f in results.values()))
    for key in shares:
        label = f"  {key.removeprefix('share_')} share, ms"
        print(f"{label:<36}" + "".join(
            f"{100 * results[n].get(key, 0.0):>{width - 8}.1f}% {results[n].get(key, 0.0) * results[n]['cpu_ms_per_move']:>6.2f}"
            for n in names))
    for name in names:
        if name not in GOALS:  # text mails only: the goals are for the usual mails, beside it
            continue
        goal, ratio = GOALS[name], results[name]["cpu_ratio_to_mail_servers"]
        print(f"  goal ({name}): daemon / mail servers <= {goal}: {ratio:.2f}, {'met' if ratio <= goal else 'missed'}")
    for name in names:
        text = results.get(f"{name}-text")
        if text is not None:
            html = results[name]
            part = html["cpu_ms_per_move"] - text["cpu_ms_per_move"]
            print(f"  the HTML part ({name}): {part:.2f} ms of the daemon's {html['cpu_ms_per_move']:.2f} ms a move "
                  f"({100 * part / html['cpu_ms_per_move']:.0f} %); with text mails only, daemon / mail servers "
                  f"= {text['cpu_ratio_to_mail_servers']:.2f}")
    if {"sqlite", "postgresql"} <= set(names):
        sqlite, postgresql = results["sqlite"], results["postgresql"]
        wall = (postgresql["seconds"] / postgresql["moves"]) / (sqlite["seconds"] / sqlite["moves"])
        floors = postgresql["ratio_to_floor"] / sqlite["ratio_to_floor"]
        print(f"  goal: PostgreSQL's wall time per move within {WALL_GOAL}x of SQLite's: {wall:.2f}x "
              f"({'met' if wall <= WALL_GOAL else 'missed'}); each over its own run's floor: {floors:.2f}x")
