"""The layers import one way: core < retrieval < inference < {synth_data, eval} < training, with
the entry points (the package root, the CLI, the demo) on top (docs/layout.md).

Every ``import``/``from ... import`` of a ``favakit`` module anywhere in a module (at the top,
inside functions, under ``TYPE_CHECKING``) is read from the source with :mod:`ast` and checked
against the order; a lazy import counts like any other.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: source folder -> the package it is installed as (pyproject.toml's package-dir)
FOLDERS = {
    "core": "favakit",
    "retrieval": "favakit.retrieval",
    "inference": "favakit.inference",
    "synth_data": "favakit.synth_data",
    "eval": "favakit.eval",
    "training": "favakit.training",
    "app/cli": "favakit.cli",
    "app/demo": "favakit.demo",
}

#: layer of each package; a module may import its own layer's package and any lower layer
LAYERS = {
    "favakit": 0,  # the core
    "favakit.retrieval": 1,
    "favakit.inference": 2,
    "favakit.synth_data": 3,
    "favakit.eval": 3,
    "favakit.training": 4,
    "favakit.cli": 5,  # entry points
    "favakit.demo": 5,
}
TOP = 5
#: the package root (``favakit/__init__.py``, ``__main__``) is the front door: it names the
#: public API, loaded lazily from any layer, and no layer below the entry points imports it
FRONT = {"favakit", "favakit.__main__"}


def module_name(path: Path, root: Path = ROOT) -> str:
    rel = path.relative_to(root)
    folder = next(f for f in sorted(FOLDERS, key=len, reverse=True) if rel.is_relative_to(f))
    parts = list(rel.relative_to(folder).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join([FOLDERS[folder], *parts])


def package_of(module: str) -> str:
    """The layered package ``module`` belongs to (``favakit.inference.editor`` ->
    ``favakit.inference``; ``favakit.tags`` -> ``favakit``)."""
    for pkg in sorted(LAYERS, key=len, reverse=True):
        if pkg != "favakit" and (module == pkg or module.startswith(pkg + ".")):
            return pkg
    return "favakit"


def _is_module(root: Path, name: str) -> bool:
    """Whether ``favakit.<name>`` is a module (else a name the package root exports)."""
    return name in ("cli", "demo") or (root / "core" / f"{name}.py").exists()


def imports_of(path: Path, module: str, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, imported favakit module) for every import in ``path``, lazy ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module
                base = module.split(".")
                base = base if is_pkg else base[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == "favakit":  # `from favakit import x`: x may be a module
                found += [
                    (node.lineno, f"favakit.{a.name}" if _is_module(root, a.name) else "favakit")
                    for a in node.names
                ]
            else:
                found.append((node.lineno, target))
    return [(line, name) for line, name in found if name.split(".")[0] == "favakit"]


def violations(root: Path = ROOT) -> list[str]:
    """Every import against the layer order, as ``file:line: a -> b (why)``."""
    bad = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            module = module_name(path, root)
            if module in FRONT:
                continue
            layer = LAYERS[package_of(module)]
            for line, target in imports_of(path, module, root):
                where = f"{path.relative_to(root)}:{line}: {module} -> {target}"
                if target in FRONT or target.startswith("favakit.__"):
                    if layer < TOP:  # the entry points may read it (its __version__)
                        bad.append(f"{where} (the package root is the front door, not a library)")
                    continue
                other = package_of(target)
                if other != package_of(module) and LAYERS[other] >= layer and layer < TOP:
                    bad.append(f"{where} (layer {LAYERS[other]} from layer {layer})")
    return bad


def test_every_import_follows_the_layer_order() -> None:
    assert violations() == []


def test_every_package_folder_is_mapped() -> None:
    """A new source folder must get a layer before it can hide imports from this test."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for folder, package in FOLDERS.items():
        assert f'"{package}" = "{folder}"' in text


@pytest.mark.parametrize(
    ("folder", "line", "layer_note"),
    [
        ("core", "from favakit.retrieval.kb import KnowledgeSource", "layer 1 from layer 0"),
        ("retrieval", "    from favakit.inference.editor import align", "layer 2 from layer 1"),
        ("eval", "import favakit.synth_data.rules", "layer 3 from layer 3"),
        ("inference", "from favakit import open_editor", "front door"),
    ],
)
def test_a_back_import_fails_the_check(
    tmp_path: Path, folder: str, line: str, layer_note: str
) -> None:
    """The check on a copy of the tree with one bad import added (lazy ones too)."""
    for name in FOLDERS:
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    bad = tmp_path / folder / "bad_module.py"
    body = f"def f() -> None:\n{line}\n" if line.startswith(" ") else f"{line}\n"
    bad.write_text(body, encoding="utf-8")
    found = violations(tmp_path)
    assert len(found) == 1 and layer_note in found[0], found
