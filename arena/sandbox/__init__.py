"""Starting and stopping bot processes, and nothing else."""

from .process import BotProcess, start_process

__all__ = ["BotProcess", "start_process"]
