"""Issue 9, items 8 and 11: config mistakes are config errors (exit 2, nothing imported), found
before anything runs, and never repeat a secret; one prompt size limit for every format."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest

from media_assistant.core.batches.batch_import import MAX_PROMPT_CHARS, read_batch, tasks_from_lines
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.states import ModelKind
from tests.faults.conftest import cli, no_traceback, write_config, write_csv
from tests.faults.conftest import rows as rows_of

KEY = "sk-test-fake-key-0000-not-real"  # pasted by mistake: still "sk-…"

API_ACCOUNT = """
[[models]]
name = "api-model"
kind = "api"

[[accounts]]
id = "ds-api"
kind = "api"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "{env}"
models = ["api-model"]
"""


def _everything_but_the_config(folder: Path) -> bytes:
    files = [p for p in folder.rglob("*") if p.is_file() and p.name != "config.toml"]
    return b"".join(p.read_bytes() for p in files)


@pytest.mark.parametrize("pasted", [KEY, "0123456789abcdef0123456789abcdef", "my key with spaces"])
def test_a_key_pasted_into_api_key_env_is_refused_and_never_repeated(
    tmp_path: Path, pasted: str
) -> None:
    """Before: ``api_key_env = "sk-…"`` was taken as a variable name and the key itself went into
    the log ("no variable sk-… set"), the store, ``status --json`` and exports."""
    data = tmp_path / "data"
    write_config(data, extra=API_ACCOUNT.format(env=pasted))
    batch = write_csv(tmp_path / "b.csv", [{"prompt": "hello", "model": "api-model"}])
    for args in (
        ["status", "--json"],
        ["run", str(batch)],
        ["submit", str(batch)],
        ["accounts", "list", "--json"],
        ["export", "-o", str(tmp_path / "out.csv")],
    ):
        result = cli(data, *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert "api_key_env" in result.stderr and "accounts[1] (ds-api)" in result.stderr
        assert pasted not in result.stdout + result.stderr, args
        assert no_traceback(result)
    assert not (data / "media-assistant.db").exists()
    assert pasted.encode() not in _everything_but_the_config(tmp_path)
    # A real variable name is fine.
    write_config(data, extra=API_ACCOUNT.format(env="DEEPSEEK_API_KEY"))
    assert cli(data, "status").returncode == 0


ADAPTER_WITH_A_TYPO = """
id = "team-chat"
name = "Our Open WebUI"
origin = "http://127.0.0.1:9"
source = "written by the team"

[selectors]
input = ["textarea"]
answer = [".answer"]
generatng = [".stop"]
"""


@pytest.mark.parametrize(
    ("account", "expected"),
    [
        ('site = "deepsek"', "unknown site 'deepsek'"),
        ('site_file = "{adapter}"', "selectors.generatng: unknown key"),
        ('site_file = "{missing}"', "cannot read site adapter"),
    ],
)
def test_a_bad_site_or_adapter_fails_before_anything_is_imported(
    tmp_path: Path, account: str, expected: str
) -> None:
    """Before: ``status`` said all was well, then ``run`` imported the batch, could not build the
    account and exited 1 with every task left pending — found in the morning."""
    adapter = tmp_path / "team-chat.toml"
    adapter.write_text(ADAPTER_WITH_A_TYPO, encoding="utf-8")
    data = tmp_path / "data"
    line = account.format(adapter=adapter, missing=tmp_path / "nope.toml")
    write_config(
        data,
        extra=f'\n[[models]]\nname = "chat"\nkind = "web"\n\n[[accounts]]\nid = "team"\n'
        f'kind = "web"\n{line}\nmodels = ["chat"]\n',
    )
    batch = write_csv(tmp_path / "b.csv", [{"prompt": "hello", "model": "chat"}])
    for args in (["status"], ["submit", str(batch)], ["run", str(batch)]):
        result = cli(data, *args)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert expected in result.stderr and "accounts[1] (team)" in result.stderr, result.stderr
        assert no_traceback(result)
    assert not (data / "media-assistant.db").exists()  # nothing imported, no store made


def test_sites_list_includes_site_file_adapters(tmp_path: Path) -> None:
    """Before: ``sites list`` showed built-in and user-dir adapters only; an account's own
    ``site_file`` adapter (and its typo) was invisible until a task failed."""
    good = tmp_path / "team-chat.toml"
    good.write_text(ADAPTER_WITH_A_TYPO.replace("generatng", "generating"), encoding="utf-8")
    bad = tmp_path / "broken.toml"
    bad.write_text(ADAPTER_WITH_A_TYPO, encoding="utf-8")
    data = tmp_path / "data"
    accounts = "".join(
        f'\n[[accounts]]\nid = "{name}"\nkind = "web"\nsite_file = "{path}"\nmodels = ["chat"]\n'
        for name, path in (("team", good), ("other", bad))
    )
    write_config(data, extra='\n[[models]]\nname = "chat"\nkind = "web"\n' + accounts)
    result = cli(data, "sites", "list")
    assert result.returncode == 2  # one of them cannot be loaded
    lines = result.stdout.splitlines()
    team = next(line for line in lines if str(good) in line)
    assert team.startswith("team-chat") and "Our Open WebUI" in team and "(account team)" in team
    broken = next(line for line in lines if str(bad) in line)
    assert "CANNOT BE LOADED" in broken and "(account other)" in broken
    assert "selectors.generatng: unknown key" in result.stdout
    assert any(line.startswith("deepseek") for line in lines)  # built-ins still listed
    bad.write_text(good.read_text(encoding="utf-8"), encoding="utf-8")
    assert cli(data, "sites", "list").returncode == 0


LONG = MAX_PROMPT_CHARS + 1


def _write_jsonl(path: Path, prompts: list[str]) -> Path:
    lines = [json.dumps({"prompt": p, "model": "m"}, ensure_ascii=False) for p in prompts]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _write_xlsx(path: Path, cells: list[tuple[str, str]]) -> Path:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["a", "b", "model"])
    for a, b in cells:
        sheet.append([a, b, "m"])
    book.save(path)
    return path


def test_one_prompt_size_limit_for_every_format(tmp_path: Path) -> None:
    """Before: a CSV cell over 131,072 characters was "malformed CSV" (Python's csv limit) while
    JSONL took a 1 MB prompt and XLSX could combine cells past both: the same batch passed or
    failed by its file type. Now every format has the documented limit, named with the row."""
    models = {"m": ModelKind.API}
    fine = "字" * MAX_PROMPT_CHARS
    # CSV: a cell at the limit passes, over it is refused with row and column.
    ok_csv = write_csv(tmp_path / "ok.csv", [{"prompt": fine, "model": "m"}])
    assert len(read_batch(ok_csv, models=models)[0].prompt) == MAX_PROMPT_CHARS
    big_csv = write_csv(
        tmp_path / "big.csv",
        [{"prompt": "short", "model": "m"}, {"prompt": "x" * 300_000, "model": "m"}],
    )
    with pytest.raises(InputError, match=r"big\.csv: row 3: column 'prompt': .*300,000"):
        read_batch(big_csv, models=models)
    # JSONL: the same limit (it used to take anything).
    big_jsonl = _write_jsonl(tmp_path / "big.jsonl", ["short", "y" * LONG])
    with pytest.raises(InputError, match=rf"big\.jsonl: line 2: .*{LONG:,}.*100,000"):
        read_batch(big_jsonl, models=models)
    assert read_batch(_write_jsonl(tmp_path / "ok.jsonl", [fine]), models=models)
    # XLSX: cells under Excel's own limit, but the template makes one prompt over ours.
    book = _write_xlsx(tmp_path / "big.xlsx", [("a" * 30_000, "b" * 30_000)] * 2)
    with pytest.raises(InputError, match=r"big\.xlsx: row 2: the prompt is"):
        read_batch(book, models=models, template="{a}{b}{a}{b}")
    # Pasted text: per line.
    with pytest.raises(InputError, match=r"pasted text: line 2: the prompt is"):
        tasks_from_lines(f"short\n{'z' * LONG}", model="m", models=models, batch_id="p")


def test_an_oversized_prompt_is_refused_by_the_cli_and_nothing_is_imported(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_config(data)
    rows = [{"prompt": f"fine {i}", "model": "web-model"} for i in range(3)]
    rows.insert(1, {"prompt": "w" * (MAX_PROMPT_CHARS + 5), "model": "web-model"})
    batch = write_csv(tmp_path / "night.csv", rows)
    result = cli(data, "run", str(batch))
    assert result.returncode == 2, result.stdout + result.stderr
    assert "night.csv: row 3:" in result.stderr and "100,000" in result.stderr
    db = data / "media-assistant.db"
    assert not db.exists() or not rows_of(db)
