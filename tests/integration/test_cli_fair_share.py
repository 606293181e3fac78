"""Fair share through real ``media-assistant`` processes (issue 30): ``submit --share N``,
``[team] operator`` as the tenant, ``[scheduling]`` weights and ``status --json`` ``"shares"``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.integration.test_cli import cli, write_batch, write_config

SCHEDULING = """
[team]
operator = "小李"

[scheduling]
urgent = 60
normal = 30
low = 10
"""


def test_shares_follow_the_batch_weights_and_the_operator(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data, extra=SCHEDULING)
    heavy = cli(
        data,
        "submit",
        str(write_batch(tmp_path / "h.csv", 4, prefix="h")),
        "--batch-id",
        "H",
        "--share",
        "3",
    )
    assert heavy.returncode == 0, heavy.stderr
    plain = cli(
        data, "submit", str(write_batch(tmp_path / "p.csv", 2, prefix="p")), "--batch-id", "P"
    )
    assert plain.returncode == 0, plain.stderr
    status = json.loads(cli(data, "status", "--json").stdout)
    shares = {s["batch"]: s for s in status["shares"]}
    assert shares["H"]["share"] == pytest.approx(0.75) and shares["P"]["share"] == 0.25
    assert shares["H"]["tenant"] == "小李" and shares["H"]["pending"] == 4
    assert shares["H"]["eta_s"] is None  # nothing runs yet: no capacity to measure it by
    assert "H (小李): 75 % of the team's capacity" in cli(data, "status").stdout


@pytest.mark.parametrize("share", ["0", "-1", "101", "lots"])
def test_a_share_out_of_range_is_refused_and_nothing_imported(tmp_path: Path, share: str) -> None:
    data = tmp_path / "data"
    write_config(data)
    done = cli(data, "submit", str(write_batch(tmp_path / "b.csv", 2)), "--share", share)
    assert done.returncode == 2
    assert "--share must be a number > 0 and <= 100" in done.stderr
    assert json.loads(cli(data, "status", "--json").stdout)["lanes"]["web"]["total"] == 0


def test_class_weights_are_checked(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data, extra="\n[scheduling]\nurgent = 0\n")
    done = cli(data, "submit", str(write_batch(tmp_path / "b.csv", 1)))
    assert done.returncode == 2 and "scheduling.urgent" in done.stderr
