"""Every ``favakit`` command in the README, docs/ and the model cards parses with the real CLI.

docs/guide.md's and the README's checked blocks run (tests/test_guide.py, test_readme.py), but
most commands in the docs need a GPU, a server, ``../shared`` or an hour, so they never run in
the tests. This test parses each of them with the command's own parser, as the shell would hand
it over, so that a flag renamed or removed in the code fails here and not in a reader's terminal.
A ```bash block holds commands; usage lines with ``[OPTIONS]`` go in ```text blocks.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import re
import shlex
from functools import cache
from pathlib import Path

import pytest

from favakit.cli import COMMANDS, _root_parser

ROOT = Path(__file__).resolve().parents[1]
SEPARATORS = {";", "&&", "||", "|", "&", "(", ")"}
PREFIXES = {"do", "then", "else", "time", "nohup", "exec", "!"}


def doc_files() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted(ROOT.glob("inference/*/README.md")),
    ]


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M)


def favakit_commands(block: str) -> list[list[str]]:
    """The argv of each ``favakit`` command in a shell block: continued lines joined, comments,
    redirections and ``VAR=value`` prefixes dropped, pipes, ``;`` and ``&&`` separating."""
    joined = re.sub(r"\\\n", " ", block)
    commands: list[list[str]] = []
    for line in joined.splitlines():
        line = re.sub(r"\s\d?[<>]>?\s*\S+", " ", line)  # `> out.json`, `2> log`, `< in`
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token not in SEPARATORS:
                words.append(token)
                continue
            while words and (words[0] in PREFIXES or re.fullmatch(r"\w+=\S*", words[0])):
                words.pop(0)  # `do favakit ...`, `FAVAKIT_CACHE=/tmp/x favakit ...`
            if words and Path(words[0]).name == "favakit":
                commands.append(["favakit", *words[1:]])
            elif words[1:3] == ["-m", "favakit"] and Path(words[0]).name.startswith("python"):
                commands.append(["favakit", *words[3:]])
            words = []
    return commands


def all_doc_commands() -> list[tuple[str, list[str]]]:
    found = []
    for path in doc_files():
        for block in bash_blocks(path.read_text(encoding="utf-8")):
            for argv in favakit_commands(block):
                found.append((str(path.relative_to(ROOT)), argv))
    return found


@cache
def parser_for(command: str) -> argparse.ArgumentParser:
    parser, sub = _root_parser()
    module, _, function = COMMANDS[command][0].partition(":")
    getattr(importlib.import_module(module), function)(sub.add_parser(command))
    return parser


def parse_error(argv: list[str]) -> str | None:
    """None where argv parses as a favakit command line; else argparse's message."""
    if len(argv) < 2 or argv[1] not in COMMANDS:
        return f"no command {argv[1:2]}" if len(argv) > 1 and argv[1] != "--help" else None
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said), contextlib.redirect_stdout(io.StringIO()):
            parser_for(argv[1]).parse_args(argv[1:])
    except SystemExit as stop:
        if stop.code:
            return said.getvalue().strip().splitlines()[-1]
    return None


def test_the_extraction_reads_commands_as_the_shell_would() -> None:
    block = (
        "FAVAKIT_CACHE=/tmp/x favakit verify --claim 'A b.' \\\n  --evidence \"A b c.\" > out.json\n"
        "for s in a b; do favakit eval detect --gold $s.jsonl; done  # the sets\n"
        "make setup && .venv/bin/favakit env | head\n"
        "python -m favakit tags check x.jsonl 2> log\n"
        "pip install favakit\n"
    )
    assert favakit_commands(block) == [
        ["favakit", "verify", "--claim", "A b.", "--evidence", "A b c."],
        ["favakit", "eval", "detect", "--gold", "$s.jsonl"],
        ["favakit", "env"],
        ["favakit", "tags", "check", "x.jsonl"],
    ]
    assert parse_error(["favakit", "verify", "--judge", "checker"]) is None
    assert "unrecognized arguments: --no-such-flag" in str(
        parse_error(["favakit", "verify", "--no-such-flag"])
    )
    assert "invalid choice" in str(parse_error(["favakit", "verify", "--judge", "oracle"]))
    assert parse_error(["favakit", "nosuch"]) == "no command ['nosuch']"


def test_every_command_in_the_docs_parses() -> None:
    commands = all_doc_commands()
    assert len(commands) >= 150, len(commands)  # the docs hold about 200: the reader finds them
    assert {argv[1] for _, argv in commands} >= set(COMMANDS) - {"demo"}
    wrong = [f"{where}: {shlex.join(argv)}\n  {why}" for where, argv in commands
             if (why := parse_error(argv))]  # fmt: skip
    if wrong:
        pytest.fail(f"{len(wrong)} command(s) in the docs do not parse:\n" + "\n".join(wrong))
