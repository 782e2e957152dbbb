"""The read model's rows to and from the service's messages, both directions in one place:
each ``*_message`` (or ``*_parts`` for a stream) has its inverse beside it, and
``tests/service/test_convert.py`` sends every row there and back. What the server and the
client build themselves are requests that carry only a name, an id or a number.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator

from arena.engine.replay import Replay
from arena.read_model import (
    DRAW,
    TEAM_A,
    TEAM_B,
    BotLog,
    BotStatistics,
    CompareLine,
    CompareSettings,
    Entrant,
    MatchRow,
    Standing,
    Status,
    StoredCode,
    SubmitOutcome,
    TokenRow,
    VersionRow,
)

from .v1 import arena_pb2 as pb

PART = 256 * 1024  # a log or code travels in parts this big, far below gRPC's 4 MiB a message


def version_message(row: VersionRow) -> pb.Version:
    return pb.Version(
        bot=row.bot,
        number=row.number,
        status=row.status,
        reason=row.reason,
        content_hash=row.content_hash,
        validation=row.validation,
    )


def version_row(message: pb.Version) -> VersionRow:
    return VersionRow(
        message.bot,
        message.number,
        message.status,
        message.reason,
        message.content_hash,
        message.validation,
    )


def version_ref(bot: str, number: int) -> pb.VersionRef:
    return pb.VersionRef(bot=bot, number=number)


def entrant(ref: pb.VersionRef) -> Entrant:
    return Entrant(ref.bot, ref.number)


def submit_message(outcome: SubmitOutcome) -> pb.SubmitResponse:
    return pb.SubmitResponse(
        version=version_message(outcome.version), new=outcome.new, scheduled=outcome.scheduled
    )


def submit_outcome(m: pb.SubmitResponse) -> SubmitOutcome:
    return SubmitOutcome(version_row(m.version), m.new, m.scheduled)


def standing_message(row: Standing) -> pb.Standing:
    return pb.Standing(
        rank=row.rank,
        group=row.group,
        bot=row.bot,
        version=row.version,
        version_id=row.version_id,
        rating=row.rating,
        ci95_low=row.ci95[0],
        ci95_high=row.ci95[1],
        games=row.games,
        wins=row.wins,
        draws=row.draws,
        losses=row.losses,
        mean_diff=row.mean_diff,
        owner=row.owner,
        status=row.status,
        rating_model=row.rating_model,
        details=[pb.RatingDetail(name=k, value=v) for k, v in row.details.items()],
    )


def standing_row(m: pb.Standing) -> Standing:
    return Standing(
        m.rank, m.group, m.bot, m.version, m.version_id, m.rating,
        (m.ci95_low, m.ci95_high), m.games, m.wins, m.draws, m.losses, m.mean_diff,
        m.owner, m.status, m.rating_model, {d.name: d.value for d in m.details},
    )  # fmt: skip


def match_message(row: MatchRow) -> pb.MatchRow:
    return pb.MatchRow(
        id=row.id,
        schedule_index=row.schedule_index,
        team_a=row.team_a,
        team_b=row.team_b,
        status=row.status,
        points=list(row.points or ()),
        winner=row.winner,
        note=row.note,
        seats=[version_ref(seat.bot, seat.version) for seat in row.seats],
    )


# What servers before the one JSON dialect sent as a winner.
_OLD_WINNERS = {"team 0": TEAM_A, "team 1": TEAM_B, DRAW: DRAW}


def match_row(m: pb.MatchRow) -> MatchRow:
    points = (m.points[0], m.points[1]) if len(m.points) == 2 else None
    return MatchRow(
        m.id, m.schedule_index, m.team_a, m.team_b, m.status, points,
        _OLD_WINNERS.get(m.winner, m.winner), m.note, tuple(entrant(s) for s in m.seats),
    )  # fmt: skip


def replay_message(replay: Replay) -> pb.GetReplayResponse:
    return pb.GetReplayResponse(replay_json=json.dumps(replay.to_dict()))


def replay_of(m: pb.GetReplayResponse) -> Replay:
    return Replay.from_dict(json.loads(m.replay_json))


def log_parts(logs: Iterable[BotLog], size: int = PART) -> Iterator[pb.LogPart]:
    """Each log in parts of ``size`` bytes (an empty log: one empty part), in order."""
    for log in logs:
        for at in range(0, max(len(log.output), 1), size):
            yield pb.LogPart(
                game=log.game,
                seat=log.seat,
                first_seat=log.first_seat,
                label=log.label,
                output=log.output[at : at + size],
            )


def logs_of(parts: Iterable[pb.LogPart]) -> list[BotLog]:
    """The logs ``log_parts`` sent: a part of another game or seat starts the next log."""
    logs: list[BotLog] = []
    chunks: list[list[bytes]] = []
    for part in parts:
        if not logs or (part.game, part.seat) != (logs[-1].game, logs[-1].seat):
            logs.append(BotLog(part.game, part.seat, part.first_seat, part.label, b""))
            chunks.append([])
        chunks[-1].append(part.output)
    return [
        BotLog(log.game, log.seat, log.first_seat, log.label, b"".join(parts))
        for log, parts in zip(logs, chunks, strict=True)
    ]


def code_parts(code: StoredCode, size: int = PART) -> Iterator[pb.CodePart]:
    for at in range(0, len(code.archive), size):
        yield pb.CodePart(label=code.label, chunk=code.archive[at : at + size])


def stored_code(parts: Iterable[pb.CodePart]) -> StoredCode:
    label, chunks = "", []
    for part in parts:
        label = part.label
        chunks.append(part.chunk)
    return StoredCode(label, b"".join(chunks))


def status_message(status: Status) -> pb.StatusResponse:
    return pb.StatusResponse(status_json=json.dumps(status.as_json()))


def status_of(m: pb.StatusResponse) -> Status:
    return Status.from_json(json.loads(m.status_json))


def statistics_message(found: BotStatistics) -> pb.BotStatisticsResponse:
    return pb.BotStatisticsResponse(statistics_json=json.dumps(found.as_json()))


def statistics_of(m: pb.BotStatisticsResponse) -> BotStatistics:
    return BotStatistics.from_json(json.loads(m.statistics_json))


def compare_request(a: str, b: str, settings: CompareSettings) -> pb.CompareRequest:
    """A comparison's request: every setting but the poll period (the server's own)."""
    return pb.CompareRequest(
        a=a, b=b, seed=settings.seed, elo0=settings.elo0, elo1=settings.elo1,
        alpha=settings.alpha, beta=settings.beta, max_pairs=settings.max_pairs,
        pentanomial=settings.pentanomial, batch=settings.batch,
    )  # fmt: skip


def compare_settings(m: pb.CompareRequest) -> CompareSettings:
    """The request's settings as asked (the server caps them after); batch 0: the default."""
    return CompareSettings(
        seed=m.seed, elo0=m.elo0, elo1=m.elo1, alpha=m.alpha, beta=m.beta,
        max_pairs=m.max_pairs, pentanomial=m.pentanomial, batch=m.batch or CompareSettings.batch,
    )  # fmt: skip


def compare_update(line: CompareLine) -> pb.CompareUpdate:
    text, verdict = line
    return pb.CompareUpdate(line=text, verdict=verdict or "")


def compare_line(m: pb.CompareUpdate) -> CompareLine:
    return m.line, m.verdict or None  # type: ignore[return-value]


def token_message(row: TokenRow) -> pb.TokenInfo:
    return pb.TokenInfo(name=row.name, created_at=row.created_at, expires_at=row.expires_at or 0)


def token_row(m: pb.TokenInfo) -> TokenRow:
    return TokenRow(m.name, m.created_at, m.expires_at or None)
