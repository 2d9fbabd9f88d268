"""pytest tests of `python -m engram_ml`: it runs from another directory, lists every command, refuses an
unknown one, and every flag of every command (and of every training stage) has help text."""

import argparse
import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from engram_ml.__main__ import COMMANDS, main

PACKAGE_PARENT = str(Path(__file__).resolve().parents[1])


def _run(args: List[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "engram_ml", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


def test_help_from_another_directory_lists_every_command(tmp_path: Path) -> None:
    r = _run(["--help"], tmp_path)
    assert r.returncode == 0, r.stderr
    for name in COMMANDS:
        assert f"  {name} " in r.stdout


def test_a_command_runs_from_another_directory(tmp_path: Path) -> None:
    r = _run(["train", "policy", "--help"], tmp_path)
    assert r.returncode == 0, r.stderr
    assert "--perception" in r.stdout and "--no-anchor" in r.stdout


def test_no_command_or_an_unknown_one_exits_2_naming_the_commands(capsys: pytest.CaptureFixture) -> None:
    assert main([]) == 2
    with pytest.raises(SystemExit) as stop:
        main(["fly"])
    assert stop.value.code == 2
    assert "unknown command 'fly': expected one of serve, train" in capsys.readouterr().err


class _Captured(Exception):
    pass


def _parsers(module_name: str, monkeypatch: pytest.MonkeyPatch) -> List[argparse.ArgumentParser]:
    """The parser a command's main builds (and its sub-parsers), caught at parse_args."""
    seen: List[argparse.ArgumentParser] = []

    def capture(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        seen.append(self)
        raise _Captured

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", capture)
    with pytest.raises(_Captured):
        importlib.import_module(module_name).main([], prog="test")
    out = list(seen)
    for parser in seen:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                out += list(action.choices.values())
    return out


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_flag_has_help(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    parsers = _parsers(COMMANDS[name][0], monkeypatch)
    missing = [
        f"{p.prog} {a.option_strings or a.dest}"
        for p in parsers
        for a in p._actions
        if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and not a.help
    ]
    assert missing == []
    assert sum(len(p._actions) for p in parsers) > len(parsers)  # the parsers were really found
