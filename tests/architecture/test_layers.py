"""The layers of ARCHITECTURE.md, checked on the sources: what each package may import.

Each rule is read from the import statements (``ast``), so a lazy import inside a function
counts as much as one at the top: a layer that needs another only sometimes still needs it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# layer (a package, or a module outside any package) -> the parts of arena it must never
# import; every module of arena is in one (test_every_module_of_arena_is_in_a_layer).
NEVER = {
    "arena.__init__": {"arena"},  # the version
    "arena.__main__": {
        "arena.store", "arena.league", "arena.sandbox", "arena.referee", "arena.service",
        "arena.web", "arena.play", "arena.images",
    },  # the console script: the CLI, imported as it runs
    "arena.host": {"arena"},  # host-level utilities: the standard library only
    "arena.bots": {"arena"},  # a bot's manifest, submission and limits: the same
    "arena.engine": {"arena"},  # the rules: the standard library only
    "arena.competition": {
        "arena.store", "arena.league", "arena.sandbox", "arena.referee", "arena.service",
        "arena.web", "arena.play", "arena.images", "arena.cli",
    },  # pure tournament logic
    "arena.referee": {
        "arena.store", "arena.league", "arena.service", "arena.web", "arena.play", "arena.cli",
    },
    "arena.sandbox": {
        "arena.store", "arena.league", "arena.referee", "arena.service", "arena.web",
        "arena.play", "arena.cli",
    },
    # Builds images; the sandbox runs them.
    "arena.images": {
        "arena.store", "arena.league", "arena.referee", "arena.service", "arena.web",
        "arena.play", "arena.competition", "arena.cli",
    },
    # Bots run here: above the sandbox and the referee, below the ladder.
    "arena.play": {"arena.store", "arena.league", "arena.service", "arena.web", "arena.cli"},
    "arena.store": {
        "arena.league", "arena.sandbox", "arena.referee", "arena.service", "arena.web",
        "arena.play", "arena.images", "arena.cli",
    },
    # The rows every Ladder answers with (tests/architecture/test_light_imports.py: the
    # standard library alone, at run time).
    "arena.read_model": {
        "arena.store", "arena.league", "arena.sandbox", "arena.referee", "arena.service",
        "arena.web", "arena.play", "arena.images", "arena.cli",
    },
    # Plain-text views of cards, bids, deals and statistics.
    "arena.render": {
        "arena.store", "arena.league", "arena.sandbox", "arena.referee", "arena.service",
        "arena.web", "arena.play", "arena.images", "arena.cli",
    },
    "arena.league": {"arena.web", "arena.cli"},  # the use cases, under every front end
    "arena.service": {"arena.web", "arena.cli"},
    # Reads, never plays; and only through the ladder (arena.league), never the store.
    "arena.web": {
        "arena.sandbox", "arena.referee", "arena.service", "arena.store", "arena.play",
        "arena.images", "arena.cli",
    },
    # Parses, calls the ladder (local or remote), prints: its data only through the ladder;
    # it plays through arena.play.
    "arena.cli": {"arena.referee", "arena.store"},
}  # fmt: skip


def imports_of(path: Path, package: str) -> set[str]:
    """Every module ``path`` imports, absolute (relative imports resolved from ``package``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def package_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts if parts[-1] == "__init__" else parts[:-1]).removesuffix(".__init__")


def sources(top: str) -> list[Path]:
    """A package's files, or the one file of a module (``arena.render``, ``arena.__init__``)."""
    where = ROOT / top.replace(".", "/")
    if where.with_suffix(".py").is_file():
        return [where.with_suffix(".py")]
    return sorted(p for p in where.rglob("*.py") if "/v1/" not in str(p))


def breaks(imported: str, forbidden: set[str]) -> bool:
    return any(imported == f or imported.startswith(f + ".") for f in forbidden)


@pytest.mark.parametrize("layer", sorted(NEVER))
def test_a_layer_imports_only_what_it_may(layer: str) -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {imported}"
        for path in sources(layer)
        for imported in sorted(imports_of(path, package_of(path)))
        if breaks(imported, NEVER[layer]) and not imported.startswith(layer)
    ]
    assert wrong == []


def test_every_module_of_arena_is_in_a_layer() -> None:
    """A new package or top-level module needs its row in NEVER (and in ARCHITECTURE.md)."""
    loose = [
        name
        for name in (_module(p) for p in sorted((ROOT / "arena").rglob("*.py")))
        if not any(name == layer or name.startswith(layer + ".") for layer in NEVER)
    ]
    assert loose == []


@pytest.mark.parametrize("layer", sorted(NEVER))
def test_every_layer_names_modules_that_exist(layer: str) -> None:
    assert sources(layer) != []


def test_a_loose_module_is_caught() -> None:
    """The coverage check itself: a module outside every layer is reported."""
    assert not any(
        name == layer or name.startswith(layer + ".")
        for name in ("arena.helpers", "arena.enginex.rules")
        for layer in NEVER
    )


def test_the_engine_uses_the_standard_library_alone() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {imported}"
        for path in sources("arena.engine")
        for imported in sorted(imports_of(path, package_of(path)))
        if imported.split(".")[0] not in sys.stdlib_module_names
        and not imported.startswith("arena.engine")
        and imported != "__future__.annotations"
    ]
    assert wrong == []


def test_the_sdk_knows_nothing_of_the_platform() -> None:
    wrong = [
        f"{path.relative_to(ROOT)} imports {imported}"
        for path in sorted((ROOT / "sdk" / "arena_sdk").rglob("*.py"))
        for imported in imports_of(path, "arena_sdk")
        if breaks(imported, {"arena"})
    ]
    assert wrong == []


def test_the_web_reaching_for_the_store_is_caught(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from arena.store.tokens import token_hash\n")
    found = imports_of(bad, "arena.web")
    assert any(breaks(imported, NEVER["arena.web"]) for imported in found)


def test_a_rule_broken_is_caught(tmp_path: Path) -> None:
    """The checker itself: an engine module that reaches for the store is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from arena.store import Store\nfrom ..league import api\n")
    found = imports_of(bad, "arena.engine")
    assert breaks("arena.store.Store", NEVER["arena.engine"]) and "arena.store" in found
    assert "arena.league.api" in found


def test_no_modules_import_each_other_in_a_circle() -> None:
    """Among arena's modules; a module importing its own package's ``__init__`` (which
    re-exports it) is not counted."""
    modules = {
        package_of(p) if p.name == "__init__.py" else _module(p): p for p in sources("arena")
    }
    graph = {
        name: {
            imported
            for imported in imports_of(path, package_of(path))
            if imported in modules and imported != name and not name.startswith(imported + ".")
        }
        for name, path in modules.items()
    }
    assert _cycles(graph) == []


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found
