"""favakit: find, type and fix hallucinated spans in text written by language models.

The Python API, in three names (the README's "Python" section)::

    from favakit import ClientSpec, open_editor, open_verifier

    editor = open_editor(ClientSpec(), kind="encoder")   # or "generative", "cascade"
    verifier = open_verifier("verifier")                  # or "llm", "encoder", "editor"

This root module is the package's front door and sits above every layer (docs/layout.md): it
names the API and loads it on first use, so ``import favakit`` and ``favakit --help`` stay fast
and torch-free. Nothing inside the package imports from it. The layers below, each importing
only those under it: the core (this folder: :mod:`favakit.tags`, :mod:`favakit.contracts`,
:mod:`favakit.spec`, ...), :mod:`favakit.retrieval`, :mod:`favakit.inference`, then
:mod:`favakit.synth_data` and :mod:`favakit.eval`, then :mod:`favakit.training`.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

try:
    __version__ = version("favakit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

if TYPE_CHECKING:
    from favakit.contracts import Editor, EditRequest, EditResult, Verdict, Verifier
    from favakit.inference.factory import open_editor, open_verifier
    from favakit.inference.gate import GateSettings
    from favakit.spec import ClientSpec

__all__ = [
    "ClientSpec",
    "EditRequest",
    "EditResult",
    "Editor",
    "GateSettings",
    "Verdict",
    "Verifier",
    "__version__",
    "open_editor",
    "open_verifier",
]

#: public name -> the module that defines it (imported on first use)
_API = {
    "ClientSpec": "favakit.spec",
    "EditRequest": "favakit.contracts",
    "EditResult": "favakit.contracts",
    "Editor": "favakit.contracts",
    "GateSettings": "favakit.inference.gate",
    "Verdict": "favakit.contracts",
    "Verifier": "favakit.contracts",
    "open_editor": "favakit.inference.factory",
    "open_verifier": "favakit.inference.factory",
}


def __getattr__(name: str) -> Any:
    if name in _API:
        return getattr(importlib.import_module(_API[name]), name)
    raise AttributeError(f"module 'favakit' has no attribute {name!r}")
