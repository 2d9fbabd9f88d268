"""debounce_sweep: each true subtask of a GT-classifier run, replayed through the debounce on its own."""

import json
import math
from pathlib import Path

import pytest

from engram_ml.mem0_tiny import debounce_sweep

HIGH, LOW = 3.0, -3.0  # logits: sigmoid 0.95 and 0.05


def _episode(folder: Path, index: int, logits, truth) -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"logits-episode-{index}.json").write_text(json.dumps({"logits": logits, "truth": truth}))


def test_each_true_subtask_ends_right_early_or_is_missed(tmp_path: Path) -> None:
    run = tmp_path / "mn-gt-classifier-press-button"
    # Subtask 1 (ticks 0-19, true end 19): positives at 16-19, the end counts inside the 5-step tolerance.
    # Subtask 2 (20-49, true end 49): positives at 22-24 (far too early) and 47-49.
    _episode(run, 0, [LOW] * 16 + [HIGH] * 4 + [LOW] * 2 + [HIGH] * 3 + [LOW] * 22 + [HIGH] * 3, [19, 49])
    # Subtask 3 (0-9, true end 9): no positive at all (a NaN logit, written as null, counts as negative, as in the
    # runtime); what follows the last true end is not a subtask.
    _episode(run, 1, [LOW] * 9 + [None] + [HIGH] * 10, [9])
    subtasks = debounce_sweep.run_subtasks(str(run))
    assert [end for _, end in subtasks] == [19, 29, 9]
    assert math.isclose(subtasks[0][0][16], 1 / (1 + math.exp(-HIGH)))
    assert subtasks[2][0][9] == 0.0 and debounce_sweep.probability(-800.0) == 0.0
    tallies = debounce_sweep.sweep(subtasks, thresholds=[0.5], switch_counts=[3, 4, 7])
    assert tallies[(0.5, 3)] == {"right": 1, "early": 1, "missed": 1}
    assert tallies[(0.5, 4)] == {"right": 2, "early": 0, "missed": 1}  # 3 + 3 positives reach 4 at tick 47
    assert tallies[(0.5, 7)] == {"right": 0, "early": 0, "missed": 3}


def test_a_run_folder_without_logits_a_true_end_past_them_or_a_corrupt_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no logits-episode"):
        debounce_sweep.run_subtasks(str(tmp_path))
    _episode(tmp_path, 0, [LOW] * 5, [7])
    with pytest.raises(SystemExit, match="logits-episode-0.json: true end 7 past its 5 logits"):
        debounce_sweep.run_subtasks(str(tmp_path))
    (tmp_path / "logits-episode-0.json").write_text('{"logits": [1.0, 2')
    with pytest.raises(SystemExit, match="logits-episode-0.json: not JSON"):
        debounce_sweep.run_subtasks(str(tmp_path))


def test_the_sweep_prints_the_best_settings_and_the_current_one(tmp_path: Path, capsys) -> None:
    run = tmp_path / "mn-gt-classifier-cover-blocks"
    _episode(run, 0, [LOW] * 16 + [HIGH] * 4, [19])
    with pytest.raises(SystemExit, match="--current expects THRESHOLD,SWITCH_COUNT"):
        debounce_sweep.main([str(run), "--current", "8,0.5"])
    debounce_sweep.main([str(run), "--top", "1", "--current", "0.5,8"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("threshold 0.5 switch_count 1: score 1")
    current = "threshold 0.5 switch_count 8: score 0  mn-gt-classifier-cover-blocks: 0 right / 0 early / 1 missed"
    assert lines[1] == current
