"""A title column chosen at import, so tasks made from one template do not all read the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from media_assistant.core.batches.batch_import import default_title_column, read_batch
from media_assistant.core.model.errors import InputError
from media_assistant.core.model.states import ModelKind

MODELS = {"ds-chat": ModelKind.API}


def csv_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "topics.csv"
    path.write_text(text, encoding="utf-8-sig")
    return path


def test_by_default_the_first_text_column_other_than_the_prompt_titles_the_tasks(
    tmp_path: Path,
) -> None:
    path = csv_file(tmp_path, "序号,主题,读者\n1,秋季新品,年轻人\n2,冬季清仓,家长\n")
    tasks = read_batch(path, models=MODELS, default_model="ds-chat", template="写 {主题} 给 {读者}")
    assert [t.title for t in tasks] == ["秋季新品", "冬季清仓"]  # 序号 holds numbers only
    assert [t.prompt for t in tasks] == ["写 秋季新品 给 年轻人", "写 冬季清仓 给 家长"]


def test_a_title_column_in_the_file_wins_and_another_can_be_chosen_or_none(
    tmp_path: Path,
) -> None:
    path = csv_file(tmp_path, "prompt,topic,标题\nWrite A,tea,Tea notes\nWrite B,coffee,\n")
    assert [t.title for t in read_batch(path, models=MODELS, default_model="ds-chat")] == [
        "Tea notes",
        None,
    ]
    plain = csv_file(tmp_path, "prompt,topic,audience\nWrite A,tea,kids\n")
    chosen = read_batch(plain, models=MODELS, default_model="ds-chat", title_column="audience")
    assert chosen[0].title == "kids"
    assert read_batch(plain, models=MODELS, default_model="ds-chat")[0].title == "tea"
    assert (
        read_batch(plain, models=MODELS, default_model="ds-chat", title_column="")[0].title is None
    )


def test_an_unknown_title_column_rejects_the_file_naming_the_columns(tmp_path: Path) -> None:
    path = csv_file(tmp_path, "prompt,topic\nWrite A,tea\n")
    with pytest.raises(
        InputError, match=r"title column 'nope' is not a column \(columns: 'prompt', 'topic'\)"
    ):
        read_batch(path, models=MODELS, default_model="ds-chat", title_column="nope")


def test_default_title_column_skips_canonical_and_numeric_columns() -> None:
    rows = [{"prompt": "p", "model": "m", "priority": "2", "n": "3", "城市": "上海"}]
    assert default_title_column(["prompt", "model", "priority", "n", "城市"], rows) == "城市"
    assert default_title_column(["prompt", "n"], [{"prompt": "p", "n": "1"}]) is None
