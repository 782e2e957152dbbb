"""The ladder's rows to and from their messages: one place for both directions."""

from __future__ import annotations

from arena.read_model import MatchRow, Standing, VersionRow

from .v1 import arena_pb2 as pb


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
        team0=row.team0,
        team1=row.team1,
        status=row.status,
        points=list(row.points or ()),
        winner=row.winner,
        note=row.note,
    )


def match_row(m: pb.MatchRow) -> MatchRow:
    points = (m.points[0], m.points[1]) if len(m.points) == 2 else None
    return MatchRow(m.id, m.schedule_index, m.team0, m.team1, m.status, points, m.winner, m.note)
