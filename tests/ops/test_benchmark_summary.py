"""The throughput benchmark's summary: a run with text mails only shows what the HTML part costs,
beside the usual run, and is held to no goal and no recorded figure."""

from __future__ import annotations

from benchmarks import throughput_check


def _figures(cpu: float, mail_servers: float) -> dict[str, float]:
    return {"cpu_ms_per_move": cpu, "mail_cpu_ms_per_move": mail_servers, "cpu_ratio_to_mail_servers": cpu / mail_servers,
            "floor_cpu_ms_per_move": 2.0, "floor_cpu_ratio_to_mail_servers": 2.0 / mail_servers, "seconds": 6.0,
            "moves": 600, "floor_s": 9.0, "ratio_to_floor": 0.66}


def test_a_run_with_text_mails_shows_what_the_html_part_costs_and_is_held_to_no_goal(capsys, tmp_path) -> None:
    results = {"sqlite": _figures(8.0, 10.0), "sqlite-text": _figures(6.0, 9.0)}
    throughput_check.summary(results)
    shown = capsys.readouterr().out
    assert "goal (sqlite): daemon / mail servers <= 0.6: 0.80, missed" in shown
    assert "goal (sqlite-text)" not in shown
    assert "the HTML part (sqlite): 2.00 ms of the daemon's 8.00 ms a move (25 %)" in shown
    assert "with text mails only, daemon / mail servers = 0.67" in shown
    readme = tmp_path / "README.md"
    readme.write_text("    check sqlite cpu_ratio 0.5\n", encoding="utf-8")
    assert throughput_check.problems({"sqlite-text": _figures(9.0, 9.0)}, readme) == []  # held to nothing recorded
    assert throughput_check.problems({"sqlite": _figures(9.0, 9.0)}, readme) != []
