"""The tag grammar: the one place in favakit that reads or writes error tags.

A tagged passage is plain text with typed edits in it::

    It was written by <entity><mark>Lester del Rey</mark><delete>Andy Weir</delete></entity>.

Six error types, in a fixed order that every other part uses as the label index
(:data:`ERROR_TYPES`). Inside a type tag, ``<delete>`` and ``<mark>`` carry the edit, and two
opposite conventions exist (the *view*):

===========  ==========================================  ====================  ===================
view         where                                       ``<delete>`` holds    ``<mark>`` holds
===========  ==========================================  ====================  ===================
``edit``     model output, training targets, FAVABench   the wrong text        the correction
``synthetic`` error-insertion output                     the original text     the inserted error
===========  ==========================================  ====================  ===================

Edits are therefore stored by what the text *is*, not by which tag held it:
:class:`Edit` ``(type, wrong, right)``. ``wrong`` is the hallucinated text as it appears in the
text being checked; ``right`` is its replacement (``""`` deletes it). A type tag with no
``<delete>``/``<mark>`` inside (``<subjective>...</subjective>``) is a *bare* edit: its whole
content is wrong and the corrected text drops it, unless ``keep_bare=True`` (FAVA's own
post-processing keeps that text; use the option to reproduce FAVA's numbers).

Two parsers share one state machine:

* :func:`parse` is strict, for favakit's own data: anything but the canonical grammar raises
  :class:`TagParseError` naming the rule, the position and a snippet.
* :func:`parse_lenient` is for model output: it never raises, and every deviation it repairs is
  reported as a named :class:`Repair` (see :data:`REPAIRS` for the rules).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from favakit.errors import UsageError

__all__ = [
    "ERROR_TYPES",
    "REPAIRS",
    "VIEWS",
    "Edit",
    "LenientResult",
    "Repair",
    "Span",
    "TagParseError",
    "Tagged",
    "View",
    "apply_edits",
    "convert",
    "corrected_text",
    "edits",
    "has_tags",
    "original_text",
    "parse",
    "parse_lenient",
    "render",
    "spans",
    "stack",
    "strip",
]

#: The six error types of FAVA's taxonomy, in label-index order.
ERROR_TYPES: tuple[str, ...] = (
    "entity",
    "relation",
    "contradictory",
    "invented",
    "subjective",
    "unverifiable",
)
#: Word/phrase-level types (usually carry a correction) vs sentence-level types (usually deleted).
PHRASE_TYPES: tuple[str, ...] = ERROR_TYPES[:2]
SENTENCE_TYPES: tuple[str, ...] = ERROR_TYPES[2:]

View = Literal["edit", "synthetic"]
VIEWS: tuple[View, ...] = ("edit", "synthetic")

Role = Literal["wrong", "right"]
_ROLE_OF: dict[str, dict[str, Role]] = {
    "edit": {"delete": "wrong", "mark": "right"},
    "synthetic": {"delete": "right", "mark": "wrong"},
}
_KIND_OF: dict[str, dict[Role, str]] = {
    view: {role: kind for kind, role in roles.items()} for view, roles in _ROLE_OF.items()
}

#: Repair rules of the lenient parser, by name. The strict parser raises on every one of them.
REPAIRS: dict[str, str] = {
    "tag_spelling": "a known tag written with other case, inner whitespace or an alias "
    "(`< Mark >`, `<Entity>`, `<contradiction>`) was read as the canonical tag",
    "self_closing_tag": "a self-closing known tag (`<mark/>`) carried nothing and was dropped",
    "special_token": "a tokenizer special token (`</s>`, `<s>`, `<|eot_id|>`) was removed",
    "orphan_close": "a closing tag with nothing open to close was dropped",
    "mismatched_close": "a closing tag of another name closed the innermost open tag",
    "unclosed_part": "a `<mark>`/`<delete>` left open was closed where the next tag began",
    "unclosed_type": "a type tag left open was closed where the next type tag or the end began",
    "reopen_as_close": "an opening tag of the type already open, after its parts and not "
    "followed by a part (FAVA's `</delete><contradictory>` artifact), closed the type",
    "missing_part_open": "a `</mark>`/`</delete>` with no opening tag took the text since the "
    "type tag or the previous part as its content",
    "part_outside_type": "a `<mark>`/`<delete>` outside any type tag: its wrong text was kept "
    "as plain text and its correction dropped",
    "duplicate_part": "a second `<mark>` (or `<delete>`) in one type tag started a new edit of "
    "the same type (a correction between two wrong texts went with the second)",
    "text_beside_parts": "text inside a type tag but outside its `<mark>`/`<delete>` was moved "
    "out of the edit as plain text",
    "whitespace_between_parts": "whitespace between a type tag and its parts was dropped",
    "nested_type": "a type tag inside a `<mark>`/`<delete>` was flattened into the outer edit",
    "empty_edit": "a type tag with no text in it was dropped",
    "joined_tag": "text on either side of a dropped tag joined into a new tag (`<<s>mark>`), "
    "which was removed too; where that goes on for rounds, or the tag forms across an edit's "
    "edge (`<mark<entity>>`), its `<` becomes `‹` instead, so no output holds a tag",
}


@dataclass(frozen=True, slots=True)
class Edit:
    """One tagged error: ``wrong`` as it appears in the checked text, ``right`` its fix.

    ``bare`` marks a type tag without ``<delete>``/``<mark>``: the whole content is wrong and no
    correction was offered (``right`` is then always ``""``).
    """

    type: str
    wrong: str
    right: str = ""
    bare: bool = False

    def __post_init__(self) -> None:
        if self.type not in ERROR_TYPES:
            raise ValueError(f"unknown error type {self.type!r}; expected one of {ERROR_TYPES}")
        if self.bare and self.right:
            raise ValueError("a bare edit has no correction: right must be empty")
        if not self.wrong and not self.right:
            raise ValueError("an edit needs wrong text, a correction, or both")
        for name in ("wrong", "right"):
            value = getattr(self, name)
            if has_tags(value):
                raise ValueError(f"Edit.{name} contains tag markup: {value!r}")

    @property
    def label(self) -> int:
        """Index of the type in :data:`ERROR_TYPES`."""
        return ERROR_TYPES.index(self.type)


@dataclass(frozen=True, slots=True)
class Span:
    """Character span of an edit in the original (tag-free, uncorrected) text."""

    type: str
    start: int
    end: int
    wrong: str
    right: str

    def to_dict(self) -> dict[str, str | int]:
        return {
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "wrong": self.wrong,
            "right": self.right,
        }


Segment = str | Edit


_CLOSES = (",", ";", ":", ".", "!", "?", ")")
_CONJUNCTION_AT_END = re.compile(r"(?:,\s*|\s+)(?:and|or|but|nor)\s*$")
_COMMA_CONJUNCTION = re.compile(r"(?:and|or|but|nor)\b")


def _close_gap(left: str, right: str, last: bool) -> tuple[str, str]:
    """The text just before a deletion and just after it (``last``: nothing follows), mended so
    that the sentence reads on: where the clause closes right after the deletion, the left side
    loses a dangling conjunction (``"physicist and ."``), comma (``"prizes, ."``) or open bracket
    (``"Paris ()"``), and an aside's second comma goes with its first (``"Curie, , was"`` ->
    ``"Curie was"``); before ``and``/``or`` a dangling comma goes (``"red, and round"`` ->
    ``"red and round"``); a doubled space becomes one."""
    after = right.lstrip(" ")
    closes = after[:1] in _CLOSES if after else last
    if closes:
        core = left.rstrip(" ")
        conjunction = _CONJUNCTION_AT_END.search(core)
        if conjunction:
            core = core[: conjunction.start()]
        elif core.endswith("(") and after.startswith(")"):
            return core[:-1].rstrip(" "), after[1:]
        elif core.endswith((",", ";")):
            core = core[:-1]
            if after.startswith(","):
                after = after[1:]
        return core, after
    if left.rstrip(" ").endswith(",") and _COMMA_CONJUNCTION.match(after):
        return left.rstrip(" ")[:-1] + " ", after
    if (not left or left[-1:].isspace()) and right[:1] == " ":
        return left, right[1:]
    return left, right


@dataclass(frozen=True)
class Tagged:
    """A parsed passage: plain text and edits, in order.

    Adjacent strings are merged and empty strings dropped, so equal passages compare equal.
    """

    segments: tuple[Segment, ...]

    def __init__(self, segments: Iterable[Segment] = ()) -> None:
        merged: list[Segment] = []
        for seg in segments:
            if isinstance(seg, str):
                if not seg:
                    continue
                if has_tags(seg):
                    raise ValueError(f"plain text contains tag markup: {seg!r}")
                if merged and isinstance(merged[-1], str):
                    merged[-1] = merged[-1] + seg
                    continue
            elif not isinstance(seg, Edit):
                raise TypeError(f"segments are str or Edit, got {type(seg).__name__}")
            merged.append(seg)
        object.__setattr__(self, "segments", tuple(merged))

    def __iter__(self) -> Iterator[Segment]:
        return iter(self.segments)

    @property
    def edits(self) -> list[Edit]:
        return [s for s in self.segments if isinstance(s, Edit)]

    def original(self) -> str:
        """The text as the model (or the error inserter) wrote it: wrong text kept."""
        return "".join(s if isinstance(s, str) else s.wrong for s in self.segments)

    def corrected(self, keep_bare: bool = False, tidy: bool = True) -> str:
        """The text with every edit applied.

        ``keep_bare`` keeps the content of bare type tags, as FAVA's code does. ``tidy`` mends
        what a deletion leaves on its two sides (:func:`_close_gap`): a doubled space (``"by
        ."`` becomes ``"by."``), a dangling comma or conjunction (``"a physicist and ."``
        becomes ``"a physicist."``), an aside's two commas, empty brackets. It only touches the
        characters next to a deletion.
        """
        out: list[str] = []
        deleted_before = False
        for seg in self.segments:
            if isinstance(seg, Edit):
                piece = seg.wrong if (seg.bare and keep_bare) else seg.right
                if piece:
                    out.append(piece)
                    deleted_before = False
                else:
                    deleted_before = True
                continue
            text = seg
            if tidy and deleted_before:
                left, text = _close_gap(out[-1] if out else "", text, last=False)
                if out:
                    out[-1] = left
                if not text:  # nothing but the gap was left: the next edit still follows one
                    continue
            out.append(text)
            deleted_before = False
        if tidy and deleted_before and out:
            out[-1] = _close_gap(out[-1], "", last=True)[0]
        result = "".join(out)
        return result.rstrip(" ") if tidy and deleted_before else result

    def spans(self) -> list[Span]:
        """Character spans of every edit in :meth:`original` (insertions have start == end)."""
        result: list[Span] = []
        pos = 0
        for seg in self.segments:
            if isinstance(seg, str):
                pos += len(seg)
                continue
            result.append(Span(seg.type, pos, pos + len(seg.wrong), seg.wrong, seg.right))
            pos += len(seg.wrong)
        return result

    def render(self, view: View = "edit") -> str:
        """Canonical tagged text in the given view."""
        return render(self, view)


@dataclass(frozen=True, slots=True)
class Repair:
    """One deviation from the grammar that the lenient parser repaired."""

    name: str
    position: int
    detail: str = ""


@dataclass(frozen=True)
class LenientResult:
    tagged: Tagged
    repairs: tuple[Repair, ...] = field(default=())

    @property
    def clean(self) -> bool:
        return not self.repairs

    def counts(self) -> dict[str, int]:
        """Number of repairs by rule name."""
        return dict(Counter(r.name for r in self.repairs))


class TagParseError(UsageError):
    """Strict parse failure: the rule broken, where, and a snippet of the text around it."""

    def __init__(self, rule: str, message: str, text: str, position: int) -> None:
        self.rule = rule
        self.position = position
        self.line = text.count("\n", 0, position) + 1
        self.column = position - (text.rfind("\n", 0, position) + 1) + 1
        lo = max(0, position - 30)
        before = text[lo:position].replace("\n", "\\n")
        after = text[position : position + 30].replace("\n", "\\n")
        self.snippet = ("..." if lo else "") + before + after
        caret = " " * (len(before) + (3 if lo else 0)) + "^"
        super().__init__(
            f"{message} [{rule}] at line {self.line}, column {self.column} (offset {position}):\n"
            f"    {self.snippet}\n    {caret}"
        )


# --------------------------------------------------------------------------------------------
# Tokenizer

_ALIASES: dict[str, str] = {
    "entities": "entity",
    "relational": "relation",
    "relations": "relation",
    "contradiction": "contradictory",
    "contradictions": "contradictory",
    "unverifable": "unverifiable",
    "unverified": "unverifiable",
    "del": "delete",
}
_PART_KINDS = ("mark", "delete")
_KNOWN = set(ERROR_TYPES) | set(_PART_KINDS)
# Each run of spaces is read by one ``\s*`` (never two in a row, which could split it in every
# way: quadratic on ``<`` and a long run of spaces), so tokenizing is linear in the text.
_TOKEN_RE = re.compile(
    r"<\s*(?:(?P<close>/)\s*)?(?P<name>[A-Za-z][A-Za-z_]*)\s*(?:(?P<selfclose>/)\s*)?>"
    r"|(?P<special><\|[A-Za-z_]+\|>)"
)
# What a "<" that could still become a tag is followed by, to the end of its text.
_TAG_START_RE = re.compile(r"<(?:\s*(?:/\s*)?(?:[A-Za-z][A-Za-z_]*\s*(?:/\s*)?)?|\|[A-Za-z_]*\|?)")
DEFUSED_BRACKET = "\u2039"  # "‹": a "<" that would form a tag with the text beside it


class _Tok(NamedTuple):  # a tuple: a text of tags makes one per tag, and a tuple is quick
    kind: Literal["text", "open", "close", "special", "selfclose"]
    value: str  # text, or canonical tag name
    pos: int
    raw: str
    canonical: bool = True


def _is_tag(m: re.Match[str]) -> bool:
    """Whether a match of the token pattern is a tag of the grammar or a tokenizer special
    token, not other angle-bracket text (``<b>``, ``<ref>``)."""
    if m.group("special"):
        return True
    low = m.group("name").lower()
    return low == "s" or _ALIASES.get(low, low) in _KNOWN


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    last = 0
    for m in _TOKEN_RE.finditer(text):
        if not _is_tag(m):
            continue  # unknown angle-bracket text stays text
        raw = m.group(0)
        if m.group("special"):
            kind: Literal["open", "close", "special", "selfclose"] = "special"
            name = raw
            canonical = True
        else:
            given = m.group("name")
            low = given.lower()
            if low == "s":
                kind, name, canonical = "special", raw, True
            else:
                name = _ALIASES.get(low, low)
                if m.group("selfclose"):
                    kind, canonical = "selfclose", True  # has a rule of its own
                else:
                    kind = "close" if m.group("close") else "open"
                    canonical = raw == (f"</{name}>" if kind == "close" else f"<{name}>")
        if m.start() > last:
            toks.append(_Tok("text", text[last : m.start()], last, text[last : m.start()]))
        toks.append(_Tok(kind, name, m.start(), raw, canonical))
        last = m.end()
    if last < len(text):
        toks.append(_Tok("text", text[last:], last, text[last:]))
    return toks


def _joins_into_tags(pieces: Sequence[str | _RawEdit]) -> bool:
    """Whether the pieces, each free of tags, form one when joined as any output joins them
    (the original, the correction, with bare text kept or not, tidied or not)."""
    if len(pieces) < 2:
        return False
    texts = [(p, p, p) if isinstance(p, str) else (p.wrong, p.right, p.wrong if p.bare else p.right)
             for p in pieces]  # fmt: skip
    # tidying removes spaces around a deletion, which a tag's own spaces absorb: no new tag
    return any(has_tags("".join(t[k] for t in texts)) for k in range(3))


def _defuse_ends(text: str) -> str:
    """``text`` with its last "<" made "‹" where what follows it, to the end, could begin a tag
    that the next piece completes."""
    at = text.rfind("<")
    if at >= 0 and _TAG_START_RE.fullmatch(text, at):
        return text[:at] + DEFUSED_BRACKET + text[at + 1 :]
    return text


def has_tags(text: str) -> bool:
    """True when ``text`` contains any known tag or tokenizer special token."""
    return "<" in text and any(_is_tag(m) for m in _TOKEN_RE.finditer(text))


# --------------------------------------------------------------------------------------------
# Parser: one state machine; strict mode raises where lenient mode repairs.


class _RawEdit(NamedTuple):
    """An edit as read, before joined tags are cleaned out of its text."""

    type: str
    wrong: str
    right: str
    bare: bool


class _Parser:
    def __init__(self, text: str, view: View, strict: bool) -> None:
        if view not in VIEWS:
            raise ValueError(f"unknown view {view!r}; expected one of {VIEWS}")
        self.text = text
        self.roles = _ROLE_OF[view]
        self.strict = strict
        self.repairs: list[Repair] = []
        self.out: list[str | _RawEdit] = []
        # open type tag
        self.typ: str | None = None
        self.typ_pos = 0
        self.parts: dict[Role, str] = {}
        self.pending: list[str] = []  # text inside the type tag, outside any part
        self.before: list[str] = []  # stray text moved out of the type tag, before the edit
        self.after: list[str] = []  # ... and after it
        # open part (<mark>/<delete>)
        self.part: str | None = None
        self.part_pos = 0
        self.part_buf: list[str] = []
        # a type tag nested inside the open part: (type, role of its open part or None)
        self.nested: str | None = None
        self.nested_role: Role | None = None

    # -- helpers -------------------------------------------------------------------------------
    def repair(self, name: str, pos: int, detail: str) -> None:
        if self.strict:
            raise TagParseError(name, detail, self.text, pos)
        self.repairs.append(Repair(name, pos, detail))

    def emit_text(self, text: str) -> None:
        if text:
            self.out.append(text)

    def close_part(self) -> None:
        assert self.part is not None
        content = "".join(self.part_buf)
        role = self.roles[self.part]
        if self.typ is None:
            # a part outside any type tag: keep the text as the model wrote it
            if role == "wrong":
                self.emit_text(content)
        else:
            self.parts[role] = content
        self.part, self.part_buf, self.nested, self.nested_role = None, [], None, None

    def finish_type(self, pos: int) -> None:
        assert self.typ is not None
        if self.part is not None:
            self.repair("unclosed_part", pos, f"<{self.part}> is never closed")
            self.close_part()
        typ = self.typ
        pending = "".join(self.pending)
        if self.parts:
            if pending.strip():
                self.repair("text_beside_parts", pos, f"text {pending!r} beside the parts")
                self.after.append(pending)
            elif pending:
                self.repair("whitespace_between_parts", pos, "whitespace beside the parts")
            wrong, right, bare = self.parts.get("wrong", ""), self.parts.get("right", ""), False
        else:
            wrong, right, bare = pending, "", True
        self.emit_text("".join(self.before))
        if wrong or right:
            self.out.append(_RawEdit(typ, wrong, right, bare))  # checked in defused()
        else:
            self.repair("empty_edit", self.typ_pos, f"<{typ}> holds no text")
        self.emit_text("".join(self.after))
        self.typ, self.parts, self.pending, self.before, self.after = None, {}, [], [], []

    def next_meaningful(self, toks: Sequence[_Tok], i: int) -> _Tok | None:
        for j in range(i + 1, len(toks)):  # no slice: a copy per tag is quadratic
            if toks[j].kind == "text" and not toks[j].value.strip():
                continue
            return toks[j]
        return None

    # -- main loop -----------------------------------------------------------------------------
    def run(self) -> Tagged:
        toks = _tokenize(self.text)
        for i, tok in enumerate(toks):
            if tok.kind != "text" and not tok.canonical:
                self.repair("tag_spelling", tok.pos, f"{tok.raw!r} read as the canonical tag")
            if tok.kind == "text":
                self.on_text(tok)
            elif tok.kind == "special":
                self.repair("special_token", tok.pos, f"special token {tok.raw!r} removed")
            elif tok.kind == "selfclose":
                self.repair("self_closing_tag", tok.pos, f"{tok.raw!r} carries nothing")
            elif self.nested is not None:
                self.on_nested_tag(tok)
            elif tok.value in _PART_KINDS:
                self.on_part_tag(tok)
            else:
                self.on_type_tag(tok, toks, i)
        end = len(self.text)
        if self.nested is not None:
            self.repair("unclosed_type", end, f"<{self.nested}> is never closed")
        if self.part is not None and self.typ is None:
            self.repair("unclosed_part", end, f"<{self.part}> is never closed")
            self.close_part()
        if self.typ is not None:
            self.repair("unclosed_type", end, f"<{self.typ}> is never closed")
            self.finish_type(end)
        return Tagged(self.defused())

    def defused(self) -> list[Segment]:
        """Merge adjacent text and remove tags formed by joining text around a dropped tag."""
        merged: list[str | _RawEdit] = []
        for seg in self.out:
            if isinstance(seg, str) and merged and isinstance(merged[-1], str):
                merged[-1] += seg
            else:
                merged.append(seg)
        pieces: list[str | _RawEdit] = []
        for seg in merged:
            if isinstance(seg, str):
                pieces.append(self.defuse(seg))
                continue
            wrong, right = self.defuse(seg.wrong), self.defuse(seg.right)
            if wrong or right:
                pieces.append(seg._replace(wrong=wrong, right=right))
        if _joins_into_tags(pieces):  # a tag across an edit's edge: "<mark" + "> by Weir."
            self.repair("joined_tag", -1, "a tag formed across an edit's boundary")
            pieces = [p if "<" not in (p if isinstance(p, str) else p.wrong + p.right) else
                      _defuse_ends(p) if isinstance(p, str) else
                      p._replace(wrong=_defuse_ends(p.wrong), right=_defuse_ends(p.right))
                      for p in pieces]  # fmt: skip
        return [p if isinstance(p, str) else Edit(p.type, p.wrong, p.right, p.bare) for p in pieces]

    def defuse(self, text: str) -> str:
        """``text`` without the tags that joining formed in it: removed, as many times as new
        ones form, up to a few rounds; then (nested on purpose, ``<<<mark>mark>mark>``) the
        "<" of any left becomes "‹", in one pass, so the work stays linear."""
        if not has_tags(text):
            return text
        for _ in range(3):
            toks = _tokenize(text)
            if all(t.kind == "text" for t in toks):
                return text
            for t in toks:
                if t.kind != "text":
                    self.repair("joined_tag", -1, f"{t.raw!r} formed by joining text")
            text = "".join(t.value for t in toks if t.kind == "text")
        return "".join(t.raw if t.kind == "text" else DEFUSED_BRACKET + t.raw[1:]
                       for t in _tokenize(text))  # fmt: skip

    def on_text(self, tok: _Tok) -> None:
        if self.nested is not None:
            # text of a nested edit joins the outer part only when it plays the same role
            assert self.part is not None
            if (self.nested_role or "wrong") == self.roles[self.part]:
                self.part_buf.append(tok.value)
        elif self.part is not None:
            self.part_buf.append(tok.value)
        elif self.typ is not None:
            self.pending.append(tok.value)
        else:
            self.emit_text(tok.value)

    def on_part_tag(self, tok: _Tok) -> None:
        kind = tok.value
        if tok.kind == "open":
            if self.part is not None:
                self.repair("unclosed_part", tok.pos, f"<{self.part}> not closed before <{kind}>")
                self.close_part()
            if self.typ is None:
                self.repair("part_outside_type", tok.pos, f"<{kind}> outside any type tag")
            else:
                if self.roles[kind] in self.parts:
                    self.repair("duplicate_part", tok.pos, f"a second <{kind}> in <{self.typ}>")
                    typ = self.typ
                    ahead = self.correction_ahead(self.roles[kind])
                    self.finish_type(tok.pos)
                    self.typ, self.typ_pos = typ, tok.pos
                    self.parts.update(ahead)
                self.absorb_pending(tok.pos)
            self.part, self.part_pos, self.part_buf = kind, tok.pos, []
            return
        # closing tag
        if self.part == kind:
            self.close_part()
        elif self.part is not None:
            self.repair("mismatched_close", tok.pos, f"</{kind}> closes <{self.part}>")
            self.close_part()
        elif self.typ is not None and self.roles[kind] not in self.parts and "".join(self.pending):
            self.repair("missing_part_open", tok.pos, f"</{kind}> has no <{kind}>")
            self.parts[self.roles[kind]] = "".join(self.pending)
            self.pending = []
        else:
            self.repair("orphan_close", tok.pos, f"</{kind}> closes nothing")

    def correction_ahead(self, role: Role) -> dict[Role, str]:
        """As a second wrong text opens in one type tag after a wrong text and then a correction
        (``<delete>A</delete><mark>M</mark><delete>B</delete>``), the correction, taken out of
        the parts: it goes with the wrong text that follows it, since a correction comes first
        in both views (A is deleted, B becomes M). Else nothing."""
        if role == "wrong" and list(self.parts) == ["wrong", "right"]:
            return {"right": self.parts.pop("right")}
        return {}

    def absorb_pending(self, pos: int) -> None:
        """Text met inside a type tag as a part opens: whitespace goes, words move out.

        Words keep their place in the original text: before the edit while its wrong text is
        still to come, after it once the wrong text has been read.
        """
        pending = "".join(self.pending)
        self.pending = []
        if not pending:
            return
        if not pending.strip():
            self.repair("whitespace_between_parts", pos, "whitespace beside the parts")
            return
        self.repair("text_beside_parts", pos, f"text {pending!r} beside the parts")
        (self.after if "wrong" in self.parts else self.before).append(pending)

    def on_type_tag(self, tok: _Tok, toks: Sequence[_Tok], i: int) -> None:
        name = tok.value
        if tok.kind == "close":
            if self.typ is None:
                if self.part is not None:  # e.g. <mark>x</entity> with no type open
                    self.repair("mismatched_close", tok.pos, f"</{name}> closes <{self.part}>")
                    self.close_part()
                else:
                    self.repair("orphan_close", tok.pos, f"</{name}> closes nothing")
                return
            if name != self.typ:
                self.repair("mismatched_close", tok.pos, f"</{name}> closes <{self.typ}>")
            self.finish_type(tok.pos)
            return
        # opening a type tag
        if self.part is not None:
            if name == self.typ:
                # <T><delete>x<T>: the part is left open and T reopened
                self.repair("unclosed_part", tok.pos, f"<{self.part}> not closed")
                self.close_part()
                self.on_type_tag(tok, toks, i)
                return
            self.repair("nested_type", tok.pos, f"<{name}> inside <{self.part}>")
            self.nested, self.nested_role = name, None
            return
        if self.typ is not None:
            nxt = self.next_meaningful(toks, i)
            if (
                name == self.typ
                and self.parts
                and not (nxt and nxt.kind == "open" and nxt.value in _PART_KINDS)
            ):
                self.repair("reopen_as_close", tok.pos, f"<{name}> read as </{name}>")
                self.finish_type(tok.pos)
                return
            self.repair("unclosed_type", tok.pos, f"<{self.typ}> not closed before <{name}>")
            self.finish_type(tok.pos)
        self.typ, self.typ_pos, self.parts, self.pending = name, tok.pos, {}, []

    def on_nested_tag(self, tok: _Tok) -> None:
        assert self.part is not None
        name = tok.value
        if name in _PART_KINDS:
            if tok.kind == "open":
                self.nested_role = self.roles[name]
            elif self.nested_role is not None:
                self.nested_role = None
            else:  # the outer part closes while the nested type is still open
                self.repair("unclosed_type", tok.pos, f"<{self.nested}> is never closed")
                self.nested = None
                self.on_part_tag(tok)
            return
        if tok.kind == "close":
            if name != self.nested:
                self.repair("mismatched_close", tok.pos, f"</{name}> closes <{self.nested}>")
            self.nested, self.nested_role = None, None
        else:
            self.repair("nested_type", tok.pos, f"<{name}> inside <{self.nested}>")


# --------------------------------------------------------------------------------------------
# Public functions


def parse(text: str, view: View = "edit") -> Tagged:
    """Strict parse: raises :class:`TagParseError` on anything but the canonical grammar."""
    return _Parser(text, view, strict=True).run()


def parse_lenient(text: str, view: View = "edit") -> LenientResult:
    """Lenient parse for model output: never raises on any text; reports each repair."""
    parser = _Parser(text, view, strict=False)
    tagged = parser.run()
    return LenientResult(tagged, tuple(parser.repairs))


def _render_edit(edit: Edit, view: View) -> str:
    t = edit.type
    if edit.bare:
        return f"<{t}>{edit.wrong}</{t}>"
    kinds = _KIND_OF[view]
    # the correction comes first in both views: FAVA's model writes <mark>right</mark><delete>
    # wrong</delete>, and its error-insertion output <delete>right</delete><mark>wrong</mark>
    pairs: tuple[tuple[Role, str], ...] = (("right", edit.right), ("wrong", edit.wrong))
    body = "".join(f"<{kinds[role]}>{text}</{kinds[role]}>" for role, text in pairs if text)
    return f"<{t}>{body}</{t}>"


def render(tagged: Tagged | Iterable[Segment], view: View = "edit") -> str:
    """Canonical tagged text of a passage in the given view."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; expected one of {VIEWS}")
    segs = tagged.segments if isinstance(tagged, Tagged) else Tagged(tagged).segments
    return "".join(s if isinstance(s, str) else _render_edit(s, view) for s in segs)


def _read(text: str, view: View, strict: bool) -> Tagged:
    return parse(text, view) if strict else parse_lenient(text, view).tagged


def original_text(text: str, view: View = "edit", strict: bool = False) -> str:
    """The text as written, tags and corrections removed (wrong text kept)."""
    return _read(text, view, strict).original()


def apply_edits(text: str, edits: Iterable[Mapping[str, Any]]) -> str:
    """``text`` with each edit applied (``{"type", "start", "end", "right"}``, offsets into
    ``text``; of overlapping edits the first wins), mended around deletions as
    :meth:`Tagged.corrected` does. How every backend turns its spans into the corrected text."""
    kept: list[tuple[int, int, str, str]] = []  # (start, end, type, right), no overlaps
    for e in sorted(edits, key=lambda x: int(x["start"])):
        start, end, right = int(e["start"]), int(e["end"]), str(e["right"])
        if (not kept or start >= kept[-1][1]) and (end > start or right):
            kept.append((start, end, str(e["type"]), right))
    bounds = [0, *(x for start, end, _, _ in kept for x in (start, end)), len(text)]
    between = [text[a:b] for a, b in zip(bounds[::2], bounds[1::2], strict=True)]
    try:
        segments: list[Segment] = [between[0]]
        for (start, end, kind, right), after in zip(kept, between[1:], strict=True):
            segments += [Edit(kind, text[start:end], right), after]
        return Tagged(segments).corrected()
    except ValueError:  # the text itself holds tag markup: the edits applied without mending
        rights = [right for _, _, _, right in kept]
        return between[0] + "".join(r + a for r, a in zip(rights, between[1:], strict=True))


def corrected_text(
    text: str, view: View = "edit", keep_bare: bool = False, strict: bool = False
) -> str:
    """The text with every edit applied."""
    return _read(text, view, strict).corrected(keep_bare=keep_bare)


def strip(text: str, view: View = "edit", keep_bare: bool = False) -> str:
    """Corrected text of (possibly malformed) tagged text; tag-free text comes back unchanged."""
    return corrected_text(text, view, keep_bare=keep_bare, strict=False)


def edits(text: str, view: View = "edit", strict: bool = False) -> list[Edit]:
    return _read(text, view, strict).edits


def spans(text: str, view: View = "edit", strict: bool = False) -> list[Span]:
    """Spans of every edit, as offsets into :func:`original_text`."""
    return _read(text, view, strict).spans()


def convert(text: str, source: View, target: View, strict: bool = True) -> str:
    """Re-render tagged text from one view into the other."""
    return render(_read(text, source, strict), target)


def stack(base: Tagged, layer: Tagged) -> Tagged:
    """Put a later layer of edits on top of an earlier one.

    ``layer`` was made from ``base.original()`` (its corrected text is that text, modulo
    whitespace), adding errors; the result holds both layers' edits, its original text is
    ``layer.original()`` and its corrected text ``base.corrected()``. This is how errors
    inserted one type per pass accumulate. Raises ``ValueError`` when the layer does not fit
    the base or one of its edits overlaps an earlier one.
    """
    text = base.original()
    # where each later edit sits in `text` (the layer's corrected text)
    placed: list[tuple[int, int, Edit]] = []
    pos = 0
    for seg in layer.segments:
        if isinstance(seg, str):
            if text[pos : pos + len(seg)] != seg:
                raise ValueError(f"the layer does not fit the base text at offset {pos}")
            pos += len(seg)
            continue
        right = seg.right if not seg.bare else ""
        if text[pos : pos + len(right)] != right:
            raise ValueError(
                f"the layer's correction {right!r} is not the base text at offset {pos}"
            )
        placed.append((pos, pos + len(right), seg))
        pos += len(right)
    if pos != len(text):
        raise ValueError("the layer's corrected text is shorter than the base text")
    earlier = [(s.start, s.end) for s in base.spans()]
    for a, b, _ in placed:
        for c, d in earlier:
            # any shared character, or an insertion strictly inside an earlier edit
            if (a < d and c < b) or (a == b and c < a < d) or (c == d and a < c < b):
                raise ValueError(f"a later edit at {a}-{b} overlaps an earlier edit at {c}-{d}")
    # rebuild: walk the base segments, splitting plain text where later edits go; a later edit
    # lies inside one plain segment, or is an insertion at a boundary
    queue = sorted(placed, key=lambda x: (x[0], x[1]))
    out: list[Segment] = []
    pos = qi = 0
    for seg in base.segments:
        if isinstance(seg, Edit):
            while qi < len(queue) and queue[qi][0] == queue[qi][1] == pos:
                out.append(queue[qi][2])  # an insertion just before an earlier edit
                qi += 1
            out.append(seg)
            pos += len(seg.wrong)
            continue
        end = pos + len(seg)
        cursor = pos
        while (
            qi < len(queue)
            and queue[qi][1] <= end
            and (queue[qi][0] < end or queue[qi][0] == end == queue[qi][1])
        ):
            a, b, edit = queue[qi]
            out.extend([text[cursor:a], edit])
            cursor = b
            qi += 1
        out.append(text[cursor:end])
        pos = end
    out.extend(edit for _, _, edit in queue[qi:])  # insertions at the very end
    return Tagged(out)
