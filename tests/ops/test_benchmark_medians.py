"""The throughput benchmark's `--repeat`: each figure's median over the runs of one database, what
only the first (profiled) run has kept as it is."""

from __future__ import annotations

from benchmarks.service_throughput import median


def test_each_figure_is_its_median_and_the_profile_comes_from_the_run_that_has_it() -> None:
    runs = [
        {"cpu_ratio_to_mail_servers": 0.86, "cpu_ms_per_move": 7.9, "share_templates": 0.3, "top_templates": [(0.2, "x")]},
        {"cpu_ratio_to_mail_servers": 0.67, "cpu_ms_per_move": 8.6},
        {"cpu_ratio_to_mail_servers": 0.70, "cpu_ms_per_move": 8.0},
    ]
    merged = median(runs)
    assert merged["cpu_ratio_to_mail_servers"] == 0.70 and merged["cpu_ms_per_move"] == 8.0
    assert merged["share_templates"] == 0.3 and merged["top_templates"] == [(0.2, "x")]

