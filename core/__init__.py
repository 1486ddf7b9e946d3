"""favakit: find, type and fix hallucinated spans in text written by language models.

The base package is torch-free: the tag grammar (:mod:`favakit.tags`), the prompt builder
(:mod:`favakit.prompts`), records and JSONL I/O (:mod:`favakit.records`), the config loader
(:mod:`favakit.config`) and the CLI. Heavy parts live in subpackages with their own extras.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("favakit")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
