"""``open_ladder``, the one way every front end opens a ladder: given a server, the ladder
it serves (over TLS); given none, this machine's store. Both answer the same."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.league.opening import open_ladder
from arena.service.tls import ClientTls

from .conftest import SAMPLE, Service


def test_the_served_and_the_local_ladder_answer_the_same(
    service: Service, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = service.local("user", "add", "ann").stdout.strip()
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    # The CLI's default server: the opener never reads it, so the web and the server always
    # serve their own store.
    monkeypatch.setenv("ARENA_SERVER", "127.0.0.1:1")
    remote = open_ladder(server=service.address, tls=ClientTls(service.certs.ca))
    local = open_ladder(url=service.url)
    try:
        sent = remote.submit(token, SAMPLE / "random", "rando")
        assert (sent.version.label, sent.version.status, sent.new) == ("rando v1", "pending", True)
        assert remote.versions() == local.versions() == [sent.version]
        assert remote.tokens(token) == local.tokens(token)
        assert remote.status(30).tournaments == local.status(30).tournaments
    finally:
        remote.close()
        local.close()


def test_a_tls_file_it_cannot_read_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "ca.pem"
    with pytest.raises(ValueError, match=f"cannot read the TLS CA file {missing}"):
        open_ladder(server="127.0.0.1:1", tls=ClientTls(missing))
