"""Running untrusted bots: one interface (``Sandbox``), three backends.

``docker`` (one locked-down container per bot per game), ``process`` (a child process under
rlimits and namespaces; weaker) and ``none`` (a plain child process; for debugging).
"""

from .base import LOG_NAME, SOCKET_NAME, RunningBot, Sandbox, describe_exit
from .choose import KINDS, default_kind, open_sandbox
from .engine import docker_available
from .errors import SandboxError
from .process import BotProcess, ProcessSandbox, namespace_prefix

__all__ = [
    "KINDS",
    "LOG_NAME",
    "SOCKET_NAME",
    "BotProcess",
    "ProcessSandbox",
    "RunningBot",
    "Sandbox",
    "SandboxError",
    "default_kind",
    "describe_exit",
    "docker_available",
    "namespace_prefix",
    "open_sandbox",
]
