"""Reports next to the JSON results: Markdown tables, a self-contained HTML page and PNG charts
(matplotlib, from the ``report`` extra; without it the charts are skipped with a note)."""

from __future__ import annotations

import base64
import html
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from favakit.tags import ERROR_TYPES

__all__ = ["REPORT_FILES", "bar_chart", "edit_gain_markdown", "write_report"]

log = logging.getLogger(__name__)


def bar_chart(
    path: Path,
    title: str,
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    ylabel: str = "",
) -> bool:
    """Grouped bars (one group per label, one bar per series) saved as PNG; False without
    matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed (pip install 'favakit[report]'): no chart")
        return False
    fig, ax = plt.subplots(figsize=(max(5.0, 1.1 * len(groups) + 2), 3.6), dpi=120)
    width = 0.8 / max(1, len(series))
    for k, (name, values) in enumerate(series.items()):
        xs = [i + (k - (len(series) - 1) / 2) * width for i in range(len(groups))]
        bars = ax.bar(xs, values, width, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=7)
    ax.set_xticks(range(len(groups)), groups, rotation=15)
    ax.set_title(title)
    if ylabel:
        ax.set_ylabel(ylabel)
    ax.legend(fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def edit_gain_markdown(result: Mapping[str, Any]) -> str:
    b, a = result["before"], result["after"]
    lines = [
        "## Editing gain",
        "",
        f"{result['n']} responses; {result['texts_edited']} edited; "
        f"{result.get('texts_flagged', 0)} with spans flagged with no fix; "
        f"{result['unfaithful']} model outputs did not reproduce the text (their edits were "
        "applied only where they fit).",
        "",
        "| | before | after | change |",
        "|---|---|---|---|",
    ]
    for key, label in (
        ("score", "FActScore"),
        ("init_score", "FActScore without length penalty"),
        ("respond_ratio", "respond ratio"),
        ("num_facts_per_response", "facts per response"),
    ):
        lines.append(f"| {label} | {b[key]:.3f} | {a[key]:.3f} | {a[key] - b[key]:+.3f} |")
    lines += [
        "",
        "An editor can raise a precision score by deleting content: read the change in facts "
        "per response next to the change in FActScore.",
        "",
        "| per type | " + " | ".join(ERROR_TYPES) + " |",
        "|---|" + "---|" * len(ERROR_TYPES),
        "| edits | "
        + " | ".join(str(result["edits_per_type"].get(t, 0)) for t in ERROR_TYPES)
        + " |",
        "| flagged, no fix | "
        + " | ".join(str(result.get("flags_per_type", {}).get(t, 0)) for t in ERROR_TYPES)
        + " |",
        "",
    ]
    return "\n".join(lines)


def _markdown_to_html(md: str) -> str:
    """The small Markdown subset the reports use: headings, tables, paragraphs."""
    out: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if rows:
            head, body = rows[0], [r for r in rows[1:] if not set("".join(r)) <= set("-: ")]
            out.append(
                "<table><tr>"
                + "".join(f"<th>{html.escape(c)}</th>" for c in head)
                + "</tr>"
                + "".join(
                    "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>"
                    for r in body
                )
                + "</table>"
            )
            rows.clear()

    for line in md.splitlines():
        if line.startswith("|"):
            rows.append([c.strip().replace("**", "") for c in line.strip("|").split("|")])
            continue
        flush()
        if line.startswith("## "):
            out.append(f"<h2>{html.escape(line[3:])}</h2>")
        elif line.strip():
            out.append(f"<p>{html.escape(line.replace('**', ''))}</p>")
    flush()
    return "\n".join(out)


#: the files :func:`write_report` and its chart write beside a report's ``OUT.json``
REPORT_FILES = (".md", ".html", ".png")


def write_report(out: Path, markdown: str, charts: Sequence[Path] = (), title: str = "") -> None:
    """``OUT.md`` and ``OUT.html`` (charts embedded, no external files) beside ``OUT``."""
    out.with_suffix(".md").write_text(markdown, encoding="utf-8")
    images = "".join(
        f'<img alt="{html.escape(p.stem)}" src="data:image/png;base64,'
        f'{base64.b64encode(p.read_bytes()).decode()}">'
        for p in charts
        if p.exists()
    )
    page = (
        "<!doctype html><html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title or out.stem)}</title><style>"
        "body{font:15px/1.5 system-ui,sans-serif;max-width:62em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
        "text-align:right}td:first-child,th:first-child{text-align:left}img{max-width:100%}"
        f"</style></head><body><h1>{html.escape(title or out.stem)}</h1>"
        f"{_markdown_to_html(markdown)}{images}</body></html>\n"
    )
    out.with_suffix(".html").write_text(page, encoding="utf-8")
