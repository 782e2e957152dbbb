"""Running untrusted bots: one interface (``Sandbox``), three backends.

``docker`` (one locked-down container per bot per game), ``process`` (a child process under
rlimits and namespaces; weaker) and ``none`` (a plain child process; for debugging).
"""

from .base import SOCKET_NAME, RunningBot, Sandbox, describe_exit
from .bot_socket import SocketFault, dial_path
from .choose import KINDS, default_kind, open_sandbox
from .docker_engine import docker_available
from .errors import SandboxError
from .process import BotProcess, ProcessSandbox, confinement_problem

__all__ = [
    "KINDS",
    "SOCKET_NAME",
    "BotProcess",
    "ProcessSandbox",
    "RunningBot",
    "Sandbox",
    "SandboxError",
    "SocketFault",
    "confinement_problem",
    "default_kind",
    "describe_exit",
    "dial_path",
    "docker_available",
    "open_sandbox",
]
