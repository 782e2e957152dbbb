"""Breaks `no-crash`: its process dies at its first play."""

import os

from arena_sdk import Bot, run


class Crash(Bot):
    def bid(self, obs):
        return "pass"

    def play(self, obs):
        os._exit(3)


if __name__ == "__main__":
    run(Crash())
