"""Errors a user can fix: the CLI prints them as one line and exits with their code."""

from __future__ import annotations

__all__ = ["FavakitError", "MissingDependencyError", "UsageError"]


class FavakitError(Exception):
    """Base of errors caused by input or environment, not by a bug: shown without traceback."""

    exit_code = 2


class UsageError(FavakitError, ValueError):
    """Bad input: a file, an argument or a value the user gave."""


class MissingDependencyError(FavakitError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""
