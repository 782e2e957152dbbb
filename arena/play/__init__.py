"""Bots run on this machine: bot specs (a sample's name or a path), attached bots, tables of
four bots and their pipeline (the games of a pair), and the conformance check (``arena
check-bot``). Above the sandbox and the referee, below the ladder and the CLI."""
