"""The import layering of docs/architecture.md, checked on the source with `ast` (every import
statement, including those inside functions): data flows one way, only ptols knows LSP, and
only the driver (and the command line built on it) strings the passes and the code generators
together."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"ptoc": ROOT / "compiler" / "ptoc", "ptols": ROOT / "server" / "ptols"}
LSP = ("ptols", "lsprotocol", "pygls")

# What ptols may import from the compiler: these modules and packages as a whole (not their
# private submodules), plus any module of ptoc.ir (the IR is the shared data model). The passes
# and the code generators are the driver's: ptols never imports them.
PUBLIC_FOR_PTOLS = {
    "ptoc",
    "ptoc.driver",
    "ptoc.diagnostics",
    "ptoc.editions",
    "ptoc.filekind",
    "ptoc.fmt",
    "ptoc.fmt.config",
    "ptoc.upgrade",
    "ptoc.lines",
    "ptoc.frontend",
    "ptoc.ir",
    "ptoc.language",
    "ptoc.ops",
    "ptoc.ops.describe",
    "ptoc.printer",
    # The hardware view's results (docs/architecture.md): source map, memory map, kernel facts.
    "ptoc.sourcemap",
    "ptoc.pass_diff",
    "ptoc.instructions",
    "ptoc.memory_map",
    "ptoc.kernel_facts",
    "ptoc.timeline",
    # The file format of cached compiled code, which ptols' attrs cache shares.
    "ptoc.codecache",
}


def module_name(path: Path, package: str) -> str:
    parts = [package, *path.relative_to(SOURCES[package]).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, name: str) -> Iterator[str]:
    """Every module an import statement of the file names (relative imports resolved; for
    `from X import y`, both X and X.y, since y may be a submodule)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def modules() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            name = module_name(path, package)
            found[name] = set(imports(path, name))
    return found


MODULES = modules()


def within(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def offenders(source: tuple[str, ...], forbidden: tuple[str, ...]) -> list[tuple[str, str]]:
    return sorted(
        (name, target)
        for name, targets in MODULES.items()
        if within(name, *source)
        for target in targets
        if within(target, *forbidden)
    )


def test_the_scan_sees_the_imports() -> None:
    # the test cannot pass by reading nothing: known edges are there
    assert "ptoc.passes" in MODULES["ptoc.driver"] and "ptoc.codegen.cce" in MODULES["ptoc.driver"]
    assert "ptoc.ir.span" in MODULES["ptoc.frontend.source"]
    assert (
        "lsprotocol.types" in MODULES["ptols.handlers"] or "lsprotocol" in MODULES["ptols.handlers"]
    )


def test_the_compiler_knows_nothing_of_lsp() -> None:
    assert offenders(("ptoc",), LSP) == []


def test_the_ir_imports_nothing_above_it() -> None:
    above = (
        "ptoc.diagnostics",
        "ptoc.ops",
        "ptoc.language",
        "ptoc.frontend",
        "ptoc.printer",
        "ptoc.passes",
        "ptoc.codegen",
        "ptoc.driver",
        "ptoc.cli",
        "ptoc.fmt",
    )
    assert offenders(("ptoc.ir",), above) == []


@pytest.mark.parametrize(
    ("stage", "forbidden"),
    [
        ("ptoc.frontend", ("ptoc.passes", "ptoc.codegen", "ptoc.driver", "ptoc.cli", "ptoc.fmt")),
        ("ptoc.passes", ("ptoc.frontend", "ptoc.codegen", "ptoc.driver", "ptoc.cli", "ptoc.fmt")),
        ("ptoc.codegen", ("ptoc.frontend", "ptoc.driver", "ptoc.cli", "ptoc.fmt")),
        ("ptoc.ops", ("ptoc.frontend", "ptoc.passes", "ptoc.codegen", "ptoc.driver")),
        ("ptoc.printer", ("ptoc.frontend", "ptoc.passes", "ptoc.codegen", "ptoc.driver")),
        (
            "ptoc.interp",
            ("ptoc.frontend", "ptoc.passes", "ptoc.codegen", "ptoc.driver", "ptoc.cli"),
        ),
        ("ptoc.driver", ("ptoc.cli", "ptoc.fmt")),
    ],
)
def test_data_flows_one_way(stage: str, forbidden: tuple[str, ...]) -> None:
    assert offenders((stage,), forbidden) == []


def test_only_the_driver_and_the_command_line_use_both_passes_and_code_generators() -> None:
    both = sorted(
        name
        for name, targets in MODULES.items()
        if any(within(t, "ptoc.passes") for t in targets)
        and any(within(t, "ptoc.codegen") for t in targets)
        and not within(name, "ptoc.passes", "ptoc.codegen")
    )
    assert both == ["ptoc.driver"]


def test_ptols_uses_the_compiler_through_public_modules_only() -> None:
    private = sorted(
        (name, target)
        for name, targets in MODULES.items()
        if within(name, "ptols")
        for target in targets
        if within(target, "ptoc")
        and target not in PUBLIC_FOR_PTOLS
        and not within(target, "ptoc.ir")
        # `from ptoc.ops import REGISTRY` names ptoc.ops.REGISTRY: an attribute, not a module
        and not (target.rsplit(".", 1)[0] in PUBLIC_FOR_PTOLS and not is_module(target))
    )
    assert private == []


def is_module(dotted: str) -> bool:
    package, *rest = dotted.split(".")
    path = SOURCES[package].joinpath(*rest)
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()
