"""The architecture is a test (STYLE 15, 21): no import cycles, imports only down the
layers, no Qt where there must be none.

The checker reads the source (AST), so it sees every import, also those inside functions
(a lazy import still couples two modules) and under `if TYPE_CHECKING:` (which count for the
layers, not for cycles: they never run).

Folders are layers: a module's layer is the folder of `simulator/` it lives in (or, for a
top-level module, its own name), and it may import its own layer and those below it:

    engine        simulator/engine/         the theory, the learners, the run; no Qt
    presentation  simulator/presentation/   frames, traces, explanations; no Qt
    ui            simulator/ui/             the views and the controller (Qt)
    export        simulator/export/         frames to files, through the same views
    app           simulator/app/            the window shell: views, controller, export
    cli           simulator/cli.py          everything; imported only by the entry points

A new module is placed by where it is saved: nothing here lists modules by hand.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
QT = ("PySide6", "pyqtgraph", "PyQt5", "PyQt6", "shiboken6")

LAYERS = ("engine", "presentation", "ui", "export", "app", "cli")
"""The layers from the bottom up: each may import those before it."""
QT_FREE_LAYERS = ("engine", "presentation")
# The one import up a layer: `simulator.ui.MainWindow`, the round-1 public name of the
# window, forwarded on first use by the views package to the shell.
FORWARDS = {("simulator.ui", "simulator.app.main_window")}


def simulator_layer(module: str) -> str:
    """The layer of a module of `simulator`: its folder (or its own name at the top)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "root"
    if parts[1] == "__main__":
        return "entry"
    if parts[1] not in LAYERS:
        raise AssertionError(f"{module}: not in a layer's folder ({', '.join(LAYERS)})")
    return parts[1]


def allowed_layers(layer: str) -> set[str]:
    """The layers a module of `layer` may import (every one may read the package root)."""
    if layer == "root":
        return set()
    if layer == "entry":
        return {"cli"}
    return {"root", *LAYERS[: LAYERS.index(layer) + 1]}


# -- the checker -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (of the package), or a third-party top-level name
    line: int
    top_level: bool  # runs when the module is imported (not inside a function)
    type_only: bool  # under `if TYPE_CHECKING:`


def modules_of(root: Path, package: str) -> dict[str, Path]:
    """Every module of `package` (a folder under `root`), by dotted name."""
    found = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(module: str, path: Path, known: dict[str, Path]) -> list[Import]:
    """The imports in one module: of `known` modules by their full name, others by their
    top-level name."""
    is_package = path.name == "__init__.py"
    top = module.split(".")[0]
    found: list[Import] = []

    def compiled(package: str, name: str) -> bool:
        """Whether `package` has a compiled module `name` (its C source or its build)."""
        folder = known.get(package)
        return (
            folder is not None
            and folder.name == "__init__.py"
            and any(folder.parent.glob(f"{name}.*"))
        )

    class Visitor(ast.NodeVisitor):
        functions = 0  # inside how many function bodies
        type_checking = 0  # inside how many `if TYPE_CHECKING:` blocks

        def add(self, target: str, node: ast.stmt) -> None:
            found.append(
                Import(module, target, node.lineno, self.functions == 0, self.type_checking > 0)
            )

        def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
            self.functions += 1
            self.generic_visit(node)
            self.functions -= 1

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_If(self, node: ast.If) -> None:
            if not _is_type_checking(node.test):
                self.generic_visit(node)
                return
            self.type_checking += 1
            for child in node.body:
                self.visit(child)
            self.type_checking -= 1
            for child in node.orelse:
                self.visit(child)

        def visit_Import(self, node: ast.Import) -> None:
            for alias in node.names:
                name = alias.name
                self.add(name if name in known else name.split(".")[0], node)

        def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known or compiled(base, alias.name):  # `from package import module`
                    self.add(full, node)
                elif base in known or base.startswith(f"{top}."):  # or a compiled module
                    self.add(base, node)
                else:
                    self.add(base.split(".")[0], node)

    Visitor().visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    return found


def import_graph(root: Path, package: str) -> dict[str, list[Import]]:
    modules = modules_of(root, package)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, list[Import]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (or a module importing
    itself), over the imports that run (not `TYPE_CHECKING` ones): Tarjan's algorithm."""
    edges = {
        m: sorted({i.target for i in imports if i.target in graph and not i.type_only})
        for m, imports in graph.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1 or v in edges[v]:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return groups


def layer_violations(graph: dict[str, list[Import]], layer_of, allowed) -> list[str]:
    """Imports of a module of the package that its layer may not import."""
    wrong = []
    for module, imports in graph.items():
        mine = layer_of(module)
        for i in imports:
            if i.target not in graph or i.target == module:
                continue
            theirs = layer_of(i.target)
            if theirs not in allowed(mine):
                wrong.append(f"{module}:{i.line} ({mine}) imports {i.target} ({theirs})")
    return wrong


def loads_qt(graph: dict[str, list[Import]], start: str) -> list[str]:
    """The chains of imports that run when `start` is imported and reach Qt (importing
    a.b.c first runs a/__init__ and a/b/__init__: those count too)."""
    chains, seen, todo = [], {start}, [[start]]
    while todo:
        chain = todo.pop()
        module = chain[-1]
        parents = [module.rsplit(".", n)[0] for n in range(1, module.count(".") + 1)]
        targets = [p for p in parents if p in graph]
        targets += [i.target for i in graph[module] if i.top_level and not i.type_only]
        for target in dict.fromkeys(targets):
            if target in QT:
                chains.append(" -> ".join([*chain, target]))
            elif target in graph and target not in seen:
                seen.add(target)
                todo.append([*chain, target])
    return chains


# -- the contract on simulator/ ----------------------------------------------------------------


@pytest.fixture(scope="module")
def graph():
    return import_graph(ROOT, "simulator")


def test_the_package_root_imports_nothing(graph):
    assert [i.target for i in graph["simulator"] if i.target.startswith("simulator")] == []


def test_no_import_cycles(graph):
    assert cycles(graph) == []


def test_every_import_goes_down_the_layers(graph):
    wrong = layer_violations(graph, simulator_layer, allowed_layers)
    assert [w for w in wrong if not _forwarded(w)] == []
    assert {w.split(":")[0] for w in wrong} == {source for source, _ in FORWARDS}


def _forwarded(violation: str) -> bool:
    return any(
        violation.startswith(f"{source}:") and f" imports {target} " in violation
        for source, target in FORWARDS
    )


def test_every_module_lives_in_a_layer(graph):
    assert {simulator_layer(m) for m in graph} <= {"root", "entry", *LAYERS}


def test_only_the_entry_points_import_the_command_line(graph):
    importers = sorted(
        m for m, imports in graph.items() for i in imports if i.target == "simulator.cli"
    )
    assert importers == ["simulator.__main__"]
    main_py = imports_of("main", ROOT / "main.py", modules_of(ROOT, "simulator"))
    assert [i.target for i in main_py if i.target.startswith("simulator")] == ["simulator.cli"]


@pytest.mark.parametrize("layer", QT_FREE_LAYERS)
def test_the_qt_free_layers_never_import_qt(graph, layer):
    modules = [m for m in graph if simulator_layer(m) == layer]
    assert modules
    assert [
        f"{i.source}:{i.line} imports {i.target}"
        for m in modules
        for i in graph[m]
        if i.target in QT
    ] == []
    assert [chain for m in modules for chain in loads_qt(graph, m)] == []


def test_the_command_line_checks_its_arguments_before_qt_loads(graph):
    """Every module the CLI imports when it starts (export's options and checks among
    them) is Qt-free, transitively: bad arguments get their line before Qt loads."""
    assert loads_qt(graph, "simulator.cli") == []


def test_importing_the_frame_loads_no_qt():
    """Not only its own imports: its packages' __init__ files must stay lazy, too."""
    code = (
        "import sys, simulator.presentation.frame, simulator.export.options; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & {set(QT)!r}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert out.stdout.strip() == "[]"


def test_the_lazy_ui_package_still_offers_the_window():
    import simulator.ui
    from simulator.app.main_window import MainWindow
    from simulator.ui.controller import SimulationController

    assert simulator.ui.MainWindow is MainWindow
    assert simulator.ui.SimulationController is SimulationController
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        simulator.ui.Nothing  # noqa: B018


# -- the checker catches what it must (a small synthetic package) ----------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, list[Import]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return import_graph(tmp_path, "pkg")


def test_the_checker_finds_a_planted_cycle(tmp_path):
    graph = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "def later():\n    from . import c\n",  # lazy: still a cycle
            "pkg/c.py": "import pkg.a\n",
            "pkg/d.py": "from pkg.a import something\n",  # into the cycle, not part of it
        },
    )
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_the_checker_ignores_type_only_imports_for_cycles(tmp_path):
    graph = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\n"
            ),
        },
    )
    assert cycles(graph) == []


def test_the_checker_finds_imports_against_the_layers_and_qt(tmp_path):
    graph = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/engine/__init__.py": "from pkg.engine.core import Core\n",
            "pkg/engine/core.py": "class Core:\n    def draw(self):\n        import PySide6\n",
            "pkg/engine/model.py": "from pkg.ui import view\n",
            "pkg/ui/__init__.py": "def __getattr__(name):\n    from pkg.ui.view import View\n",
            "pkg/ui/view.py": "from ..engine import Core\nimport pyqtgraph\n",
            "pkg/ui/frame.py": "from pkg.engine import Core\n",
            "pkg/eager/__init__.py": "from pkg.ui.view import View\n",
            "pkg/eager/frame.py": "",  # Qt-free itself, but its package's __init__ loads Qt
        },
    )

    def layer(module):
        return module.split(".")[1] if "." in module else "root"

    allowed = {"root": set(), "engine": {"engine"}, "ui": {"engine", "ui"}, "eager": {"ui"}}
    wrong = layer_violations(graph, layer, allowed.__getitem__)
    assert wrong == ["pkg.engine.model:1 (engine) imports pkg.ui.view (ui)"]
    assert loads_qt(graph, "pkg.ui.frame") == []  # the lazy __init__ imports only when asked
    assert loads_qt(graph, "pkg.eager.frame") == [
        "pkg.eager.frame -> pkg.eager -> pkg.ui.view -> pyqtgraph"
    ]
    assert loads_qt(graph, "pkg.ui.view") == ["pkg.ui.view -> pyqtgraph"]
    assert loads_qt(graph, "pkg.engine.model") == ["pkg.engine.model -> pkg.ui.view -> pyqtgraph"]
    assert loads_qt(graph, "pkg.engine") == []  # PySide6 only inside a method
    assert [i.target for i in graph["pkg.engine.core"]] == ["PySide6"]
    assert [i.target for i in graph["pkg.ui.view"]] == ["pkg.engine", "pyqtgraph"]


def test_the_checker_knows_a_compiled_module_from_the_package(tmp_path):
    graph = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.core import run\n",
            "pkg/core.py": "from pkg import _fast\nfrom pkg import run\n",
            "pkg/_fast.c": "/* built by setup.py */\n",
        },
    )
    assert [i.target for i in graph["pkg.core"]] == ["pkg._fast", "pkg"]
    assert cycles(graph) == [["pkg", "pkg.core"]]  # `run` comes from the package: a cycle
