"""The freezer's files are opened once per bot, the CPU time's too: a starting bot's watch
reads it a hundred times a second (``Turns.hold``), each read once an open and a close."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.sandbox.freezer import v1_freezer, v2_freezer


def _counting_opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    opened: list[str] = []
    real_open = os.open

    def counted(path: str | Path, flags: int, *args: int) -> int:
        opened.append(Path(path).name)
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", counted)
    return opened


def test_v1_cpu_time_is_read_through_one_descriptor_until_closed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "freezer.state").write_text("THAWED\n")
    cpu = tmp_path / "cpuacct.usage"
    cpu.write_text("2500000\n")
    freezer = v1_freezer(tmp_path, cpu)
    opened = _counting_opens(monkeypatch)
    assert freezer.cpu_ms() == 2.5
    with cpu.open("r+") as same_file:  # the counter moves on in the same file
        same_file.write("7500000\n")
    assert freezer.cpu_ms() == 7.5
    freezer.freeze()
    assert freezer.cpu_ms() == 7.5
    assert sorted(opened) == ["cpuacct.usage", "freezer.state"]  # each once
    freezer.close()
    assert freezer.cpu_ms() is None
    assert sorted(opened) == ["cpuacct.usage", "freezer.state"]  # none reopened


def test_v2_cpu_time_is_read_from_cpu_stat_through_one_descriptor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cpu.stat").write_text("usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n")
    freezer = v2_freezer(tmp_path)
    opened = _counting_opens(monkeypatch)
    assert freezer.cpu_ms() == 1.5
    assert freezer.cpu_ms() == 1.5
    assert opened == ["cpu.stat"]
    freezer.close()


def test_a_cgroup_without_a_cpu_file_reads_no_cpu_time(tmp_path: Path) -> None:
    (tmp_path / "freezer.state").write_text("THAWED\n")
    assert v1_freezer(tmp_path, None).cpu_ms() is None
    assert v1_freezer(tmp_path, tmp_path / "gone" / "cpuacct.usage").cpu_ms() is None
