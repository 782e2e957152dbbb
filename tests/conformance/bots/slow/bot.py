"""Breaks `in-time`: thinks longer than its move time and bank allow (tests check it with
--move-ms 200 --bank-ms 300)."""

import time

from arena_sdk import Bot, run


class Slow(Bot):
    def bid(self, obs):
        return "pass"

    def play(self, obs):
        time.sleep(3)
        return obs.legal_plays[0]


if __name__ == "__main__":
    run(Slow())
