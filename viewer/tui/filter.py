"""The `/` filter: tokens that combine (AND), parsed once, matched against the model.

Tokens: ``tool:NAME`` ``server:TEXT`` ``outcome:VALUE`` ``decision:VALUE`` ``flag:KIND``
(any name a finding kind goes by: the row label, its short form, the kind itself, from
``spec.FINDING_TABLE``) ``attempts:>1`` (also ``<``, ``>=``, ``<=``, ``=``), ``id:TEXT``,
``party:NAME`` (part of the name of the party that ran it, or its index: a sub-agent's work);
anything else is free text matched against ids, tools, servers and content. Matching reads the
model's fields only: the filter never re-derives a state.
"""

from __future__ import annotations

import operator
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from viewer.model import spec
from viewer.model.types import Model, Operation
from viewer.tui.parties import op_party, party_name
from viewer.tui.present import content_search_text

#: Filter flag names → finding kinds: every name the rows, findings, reports and --fail-on show.
FLAG_NAMES: Final[dict[str, str]] = spec.FINDING_BY_NAME

TOKEN_KEYS: Final = ("tool", "server", "outcome", "decision", "flag", "attempts", "id", "party")

_CMP = re.compile(r"^(>=|<=|>|<|=)?\s*(\d+)$")
_OPS: Final[dict[str, Callable[[int, int], bool]]] = {
    ">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le, "=": operator.eq,
}


class FilterError(ValueError):
    """A token the filter cannot read (shown to the user, the filter stays as it was)."""


@dataclass(frozen=True, slots=True)
class Filter:
    text: str = ""
    tools: tuple[str, ...] = ()
    servers: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    attempts: tuple[tuple[str, int], ...] = ()
    ids: tuple[str, ...] = ()
    parties: tuple[str, ...] = ()
    words: tuple[str, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not self.text.strip()


#: What flag:, outcome: and decision: can match: a typo is an error, not an empty timeline.
FLAG_VALUES: Final = frozenset(spec.FINDING_KINDS)
OUTCOME_VALUES: Final = frozenset(spec.OUTCOMES)
DECISION_VALUES: Final = frozenset([*spec.DECISIONS, "none"])


def flag_vocabulary() -> str:
    """Every flag name, kind by kind (row label first, then its other names), for help and
    the error line: ``violation/viol/policy-violation, late/late-response, ...``."""
    return ", ".join("/".join(spec.finding_names(k)) for k in spec.FINDING_TABLE)


def _known(key: str, values: list[str], known: frozenset[str]) -> None:
    unknown = [v for v in values if v not in known]
    if unknown:
        names = flag_vocabulary() if key == "flag" else ", ".join(sorted(known))
        raise FilterError(f"{key}: {unknown[0]!r} is not one of {names}")


def in_progress(text: str) -> bool:
    """True while the last token is still being typed into something the filter cannot read
    yet (``fla``, ``flag:``, ``flag:la``): live filtering keeps the last good result on screen
    instead of showing what a half-word matches (nothing)."""
    if not text or text[-1].isspace():
        return False
    last = text.split()[-1].lower()
    key, sep, value = last.partition(":")
    if not sep:
        return any(k.startswith(key) for k in TOKEN_KEYS)
    if key not in TOKEN_KEYS:
        return False
    if not value:
        return True
    try:
        parse_filter(last)
    except FilterError:
        return True
    return False


def parse_filter(text: str) -> Filter:
    """Parse the filter line; raises FilterError with a one-line reason."""
    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    parts: dict[str, list] = {k: [] for k in TOKEN_KEYS}
    words: list[str] = []
    for tok in tokens:
        key, sep, value = tok.partition(":")
        key = key.lower()
        if sep and key in parts:
            value = value.strip()
            if not value:
                raise FilterError(f"{key}: needs a value")
            if key == "flag":
                kinds = [FLAG_NAMES.get(v.lower(), v.lower()) for v in value.split("|")]
                _known(key, kinds, FLAG_VALUES)
                parts["flag"].append(tuple(kinds))
            elif key == "attempts":
                m = _CMP.match(value)
                if not m:
                    raise FilterError(f"attempts: expects a number like >1 or 2, got {value!r}")
                parts["attempts"].append((m.group(1) or "=", int(m.group(2))))
            elif key in ("outcome", "decision"):
                alts = [v.lower() for v in value.split("|")]
                _known(key, alts, OUTCOME_VALUES if key == "outcome" else DECISION_VALUES)
                parts[key].append(tuple(alts))
            else:
                parts[key].append(value.lower())
        else:
            words.append(tok.lower())
    return Filter(
        text=text,
        tools=tuple(parts["tool"]),
        servers=tuple(parts["server"]),
        outcomes=tuple(parts["outcome"]),
        decisions=tuple(parts["decision"]),
        flags=tuple(parts["flag"]),
        attempts=tuple(parts["attempts"]),
        ids=tuple(parts["id"]),
        parties=tuple(parts["party"]),
        words=tuple(words),
    )


class Matcher:
    """Matches operations against a filter; caches each operation's content text."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._content: dict[int, str] = {}

    def content(self, i: int) -> str:
        text = self._content.get(i)
        if text is None:
            text = content_search_text(self.model, self.model.operations[i])
            self._content[i] = text
        return text

    def matches(self, i: int, f: Filter) -> bool:
        op: Operation = self.model.operations[i]
        tool = (op.tool or "").lower()
        server = (op.server or "").lower()
        if any(t != tool and not _glob(t, tool) for t in f.tools):
            return False
        if any(s not in server for s in f.servers):
            return False
        if any(op.outcome not in alts for alts in f.outcomes):
            return False
        decisions = {op.decision or "none"} | {a.decision or "none" for a in op.attempts}
        if any(not decisions & set(alts) for alts in f.decisions):
            return False
        if any(not op.flags & set(alts) for alts in f.flags):
            return False
        if any(not _OPS[o](len(op.attempts), n) for o, n in f.attempts):
            return False
        oid = op.operation_id.lower()
        if any(s not in oid for s in f.ids):
            return False
        if f.parties:
            party = op_party(self.model, op)
            name = party_name(self.model, party).lower()
            if any(p != str(party) and (not name or p not in name) for p in f.parties):
                return False
        for w in f.words:
            if w in oid or w in tool or w in server:
                continue
            if w not in self.content(i):
                return False
        return True

    def select(self, f: Filter, stop: Callable[[], bool] | None = None) -> Sequence[int]:
        """Indices of the operations that match, in model order (``stop``: give up early)."""
        n = len(self.model.operations)
        if f.empty:
            return range(n)
        out = []
        for i in range(n):
            if stop is not None and i % 4096 == 0 and stop():
                break
            if self.matches(i, f):
                out.append(i)
        return out


def _glob(pattern: str, value: str) -> bool:
    if "*" not in pattern:
        return False
    import fnmatch

    return fnmatch.fnmatchcase(value, pattern)
