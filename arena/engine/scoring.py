"""Scoring one team for one deal."""


def score_team(number: int, board_level: int, tricks: int, hand_size: int) -> int:
    """Points for a team: board at ``board_level`` (0 = no board) else a numeric contract.

    >>> score_team(3, 0, 4, 13)   # made 3 with one over: 5*3 + 1
    16
    >>> score_team(3, 0, 2, 13)   # set: -5 per trick bid
    -15
    >>> score_team(0, 2, 5, 5), score_team(0, 2, 4, 5)   # double board over 5 cards
    (100, -100)
    """
    if board_level:
        value = 10 * hand_size * board_level
        return value if tricks == hand_size else -value
    if tricks >= number:
        return 5 * number + (tricks - number)
    return -5 * number
