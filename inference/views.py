"""Human views of edit results: coloured terminal text, a self-contained HTML page, a summary."""

from __future__ import annotations

import html
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from favakit.tags import ERROR_TYPES

__all__ = ["ansi", "html_page", "is_edits_page", "plain", "summary"]

# one colour per error type, in ERROR_TYPES order (ANSI codes, and CSS for the page)
_ANSI = dict(zip(ERROR_TYPES, ("31", "35", "33", "36", "34", "32"), strict=True))
_CSS = dict(
    zip(ERROR_TYPES, ("#fdd", "#f6d8f6", "#fff0b3", "#d4f4f8", "#dde4ff", "#dcf5dc"), strict=True)
)


def _pieces(result: Mapping[str, Any]) -> list[str | dict[str, Any]]:
    """The original text cut into plain strings and edits (in offset order)."""
    text: str = result["original"]
    out: list[str | dict[str, Any]] = []
    cursor = 0
    for edit in sorted(result.get("edits", []), key=lambda e: (e["start"], e["end"])):
        if edit["start"] < cursor:
            continue
        out.append(text[cursor : edit["start"]])
        out.append(edit)
        cursor = edit["end"]
    out.append(text[cursor:])
    return [p for p in out if p != ""]


def ansi(result: Mapping[str, Any], color: bool = True) -> str:
    """The text with each edit inline as ``[type: wrong -> right]`` (coloured by type with
    ``color``), then what a reader must know: text the model rewrote instead of tagging
    (``mismatches``, not applied) and warnings such as a check without evidence."""

    def paint(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    parts = []
    for piece in _pieces(result):
        if isinstance(piece, str):
            parts.append(piece)
            continue
        code = _ANSI.get(piece["type"], "0")
        if piece.get("flagged"):
            parts.append(paint(code, f"[{piece['type']}: {piece['wrong']} (flagged, no fix)]"))
            continue
        if color:
            wrong = f"\x1b[9m{piece['wrong']}\x1b[29m" if piece["wrong"] else ""
            right = f" -> \x1b[1m{piece['right']}\x1b[22m" if piece["right"] else " -> (delete)"
        else:
            wrong = piece["wrong"]
            right = f" -> {piece['right']}" if piece["right"] else " -> (delete)"
        parts.append(paint(code, f"[{piece['type']}: {wrong}{right}]"))
    head = paint("2", f"# {result.get('id', '')}") + "\n" if "id" in result else ""
    notes = [f"evidence for {_short(e['wrong'])}: {_citation(e)}"
             for e in _pieces(result) if isinstance(e, dict) and e.get("cites")]  # fmt: skip
    mismatches = result.get("mismatches") or []
    if mismatches:
        notes.append(
            f"the model rewrote {len(mismatches)} part(s) of the text instead of tagging them "
            "(not applied):"
        )
        notes += [f"  at {m['start']}: {m['expected']!r} -> {m['got']!r}" for m in mismatches[:10]]
        if len(mismatches) > 10:
            notes.append(f"  ... and {len(mismatches) - 10} more")
    notes += [f"warning: {w}" for w in result.get("warnings") or []]
    tail = "".join("\n" + paint("2", n) for n in notes)
    return head + "".join(parts) + tail


def _short(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _citation(edit: Mapping[str, Any]) -> str:
    """``[title] sentence (checker P(supported) 0.12)`` of an edit's ``cites``."""
    found = edit["cites"]
    where = f"[{found['title']}] " if found.get("title") else f"[passage {found['passage'] + 1}] "
    score = edit.get("checker_score")
    tail = f" (P(supported) {score:.2f})" if score is not None else ""
    return f"{where}{found['sentence']}{tail}"


def plain(result: Mapping[str, Any]) -> str:
    """:func:`ansi` without colours (for logs and pipes)."""
    return ansi(result, color=False)


def is_edits_page(start: str) -> bool:
    """Whether a file that begins with ``start`` is a page :func:`html_page` wrote."""
    return start.startswith(_PAGE_START + "favakit")


def _html_result(result: Mapping[str, Any]) -> str:
    body = []
    for piece in _pieces(result):
        if isinstance(piece, str):
            body.append(html.escape(piece))
            continue
        colour = _CSS.get(piece["type"], "#eee")
        if piece.get("flagged"):
            title = html.escape(f"{piece['type']}: {piece['wrong']!r} flagged, no fix offered")
            shown = f"<u>{html.escape(piece['wrong'])}</u>"
        else:
            title = html.escape(f"{piece['type']}: {piece['wrong']!r} -> {piece['right']!r}")
            right = f"<ins>{html.escape(piece['right'])}</ins>" if piece["right"] else ""
            shown = f"<del>{html.escape(piece['wrong'])}</del>{right}"
        if piece.get("cites"):
            title += html.escape(f" | evidence: {_citation(piece)}")
        body.append(
            f'<span class="edit" style="background:{colour}" title="{title}">'
            f"{shown}<sup>{html.escape(piece['type'])}</sup></span>"
        )
    evidence = "".join(
        f"<li><b>{html.escape(e.get('title') or '')}</b> {html.escape(e.get('text', ''))}</li>"
        for e in result.get("evidence", [])
    )
    warn = (
        ""
        if result.get("faithful", True)
        else '<p class="warn">The model rewrote parts of the text; those edits were not applied.</p>'
    )
    ident = html.escape(str(result.get("id", "")))
    return (
        f'<section><h2>{ident}</h2><p class="text">{"".join(body)}</p>{warn}'
        f"<details><summary>corrected</summary><p>{html.escape(result.get('corrected', ''))}</p>"
        f"</details><details><summary>evidence ({len(result.get('evidence', []))})</summary>"
        f"<ol>{evidence}</ol></details></section>"
    )


_PAGE_START = "<!doctype html><html><head><meta charset='utf-8'><title>"


def html_page(results: Sequence[Mapping[str, Any]], title: str = "favakit edits") -> str:
    """One self-contained page (no scripts, no external files) for a list of results."""
    legend = " ".join(
        f'<span class="edit" style="background:{c}">{t}</span>' for t, c in _CSS.items()
    )
    return (
        f"{_PAGE_START}{html.escape(title)}</title><style>"
        "body{font:16px/1.6 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        ".edit{border-radius:3px;padding:0 2px}del{color:#a00}ins{color:#070;text-decoration:none;"
        "font-weight:600;margin-left:2px}sup{font-size:60%;color:#555;margin-left:1px}"
        ".warn{color:#a60}section{border-top:1px solid #ddd;padding:.5em 0}"
        f"</style></head><body><h1>{html.escape(title)}</h1><p>{legend}</p>"
        + "".join(_html_result(r) for r in results)
        + "</body></html>\n"
    )


def summary(results: Sequence[Mapping[str, Any]]) -> str:
    """One line: texts, edits (fixes and deletions) per type, spans flagged with no fix per
    type, texts the model did not reproduce faithfully."""
    spans = [e for r in results for e in r.get("edits", [])]
    edits = Counter(e["type"] for e in spans if not e.get("flagged"))
    flags = Counter(e["type"] for e in spans if e.get("flagged"))

    def per_type(counts: Counter[str]) -> str:
        return ", ".join(f"{t} {counts[t]}" for t in ERROR_TYPES if counts[t]) or "none"

    line = f"{len(results)} text(s), {sum(edits.values())} edit(s) ({per_type(edits)})"
    if flags:
        line += f", {sum(flags.values())} flagged with no fix ({per_type(flags)})"
    unfaithful = sum(1 for r in results if not r.get("faithful", True))
    return f"{line}; {unfaithful} not reproduced faithfully"
