"""The tool-invocation draft's tables, as data.

Hold this module beside draft-petrie-vcon-tool-invocation and tick the cells off: section names
follow the draft. Validation (``validate.py``) and replay (``replay.py``) read these tables and
nothing else, so a change to the draft is a change here.
"""

from __future__ import annotations

from typing import Final, Literal

import msgspec

from viewer.model.types import Severity

Cell = Literal["M", "S", "O", "X"]

EXTENSION_NAME: Final = "tool-invocation"
#: The largest UnsignedInt (JMAP, which the drafts' indices and attempt numbers are): 2^53-1.
MAX_UINT: Final = 2**53 - 1

# Extensions vcon-view understands, for the core draft's `critical` rule.
SUPPORTED_EXTENSIONS: Final = frozenset({EXTENSION_NAME, "agent_session"})  # agent_trace lifted

# --- Event Object Types and Parameters -----------------------------------------------------

POLICY_DECISION: Final = "policy-decision"

#: "the tool event types" (the eleven other than policy-decision), in the draft's order.
TOOL_EVENT_TYPES: Final = (
    "tool-invocation",
    "tool-pending",
    "tool-progress",
    "tool-input",
    "tool-input-response",
    "tool-result",
    "tool-failure",
    "tool-error",
    "tool-denied",
    "tool-timeout",
    "tool-cancel",
)
TOOL_EVENT_SET: Final = frozenset(TOOL_EVENT_TYPES)

#: The twelve tool-lifecycle event types of the draft.
LIFECYCLE_EVENT_TYPES: Final = (POLICY_DECISION, *TOOL_EVENT_TYPES)
LIFECYCLE_EVENT_SET: Final = frozenset(LIFECYCLE_EVENT_TYPES)

#: Core event types (editor's draft): kept as context.
CORE_EVENT_TYPES: Final = frozenset(
    {
        "join", "drop", "hold", "unhold", "mute", "unmute", "keydown", "keyup",
        "consultation-start", "blind-transfer", "consultative-transfer", "transfer-abandoned",
    }
)

EVENT_DESCRIPTIONS: Final = {
    "policy-decision": "the agent or its host made a policy decision",
    "tool-invocation": "the agent sent a request to the tool",
    "tool-pending": "the tool accepted the request and will complete it later",
    "tool-progress": "the tool reported progress or partial output",
    "tool-input": "the tool asked the agent for input before it continues",
    "tool-input-response": "the agent sent the input requested by the tool",
    "tool-result": "the tool completed the operation and returned its output",
    "tool-failure": "the tool performed or attempted the operation and reported an error",
    "tool-error": "the request failed at the protocol level",
    "tool-denied": "the tool refused to perform the operation",
    "tool-timeout": "the agent stopped waiting for a response from the tool",
    "tool-cancel": "the agent asked the tool to stop",
}

#: What the content of each type holds ("The content of each Event Object type is").
CONTENT_MEANING: Final = {
    "policy-decision": "none",
    "tool-invocation": "the arguments sent to the tool",
    "tool-pending": "reference to the pending operation (e.g. a task handle)",
    "tool-progress": "the progress report or the partial output",
    "tool-input": "the request for input",
    "tool-input-response": "the input sent to the tool",
    "tool-result": "the output of the tool",
    "tool-failure": "the error reported by the tool",
    "tool-error": "the protocol error",
    "tool-denied": "the reason given by the tool for the denial",
    "tool-timeout": "any detail of the timeout",
    "tool-cancel": "any reason for the cancellation",
}

# --- Event Object Parameter Applicability by Type ------------------------------------------
# "content" stands for body/encoding/mediatype or url/content_hash/mediatype.
CONTENT_PARAMS: Final = ("body", "encoding", "url", "content_hash", "mediatype")

#: Policy Decision Event Parameters (the "tool-invocation" operation), by policy_life.
POLICY_DECISION_PARAMS: Final[dict[str, dict[str, Cell]]] = {
    "once": {
        "type": "M", "time": "M", "sessions": "M", "party": "M", "decision": "M",
        "policy_life": "M", "reason": "O", "operation": "M", "operation_id": "M",
        "attempt": "M", "server": "M", "tool": "M", "content": "X", "attachment": "X",
    },
    "standing": {
        "type": "M", "time": "M", "sessions": "M", "party": "M", "decision": "M",
        "policy_life": "M", "reason": "O", "operation": "M", "operation_id": "X",
        "attempt": "X", "server": "M", "tool": "O", "content": "X", "attachment": "X",
    },
}

_COMMON: Final[dict[str, Cell]] = {
    "type": "M", "time": "M", "sessions": "M", "party": "M", "operation_id": "M", "attempt": "M",
}


def _tool(server: Cell, tool: Cell, content: Cell) -> dict[str, Cell]:
    # "The decision, policy_life, reason and operation parameters MUST NOT be present in the
    # tool event types."
    return {
        **_COMMON, "server": server, "tool": tool, "content": content, "attachment": "O",
        "decision": "X", "policy_life": "X", "reason": "X", "operation": "X",
    }


#: Tool Event Parameters, Parts 1 and 2.
TOOL_EVENT_PARAMS: Final[dict[str, dict[str, Cell]]] = {
    "tool-invocation": _tool("M", "M", "S"),
    "tool-pending": _tool("X", "X", "O"),
    "tool-progress": _tool("X", "X", "S"),
    "tool-input": _tool("X", "X", "S"),
    "tool-input-response": _tool("X", "X", "S"),
    "tool-result": _tool("X", "X", "S"),
    "tool-failure": _tool("X", "X", "S"),
    "tool-error": _tool("X", "X", "S"),
    "tool-denied": _tool("X", "X", "S"),
    "tool-timeout": _tool("X", "X", "O"),
    "tool-cancel": _tool("X", "X", "O"),
}


def applicability(event_type: str, policy_life: str | None = None) -> dict[str, Cell] | None:
    """The applicability column for an event, or None for a type outside the draft."""
    if event_type == POLICY_DECISION:
        return POLICY_DECISION_PARAMS.get(policy_life or "")
    return TOOL_EVENT_PARAMS.get(event_type)


# --- Value sets ------------------------------------------------------------------------------
DECISIONS: Final = ("allowed", "permission-required", "disallowed")
POLICY_LIVES: Final = ("once", "standing")
OPERATIONS: Final = ("tool-invocation",)  # the only operation this draft defines
ENCODINGS: Final = ("json", "none", "base64url")  # core-03 content encodings
HOST_SERVER: Final = "!host"  # the only "!" server value the draft defines

# --- Policy Decision State Model ---------------------------------------------------------------
BEFORE_OPERATION: Final = "(before the operation)"
POLICY_STATES: Final = ("Allowed", "Permission Required", "Disallowed")
#: Policy Decision State Transitions: (from, decision value) -> to.
POLICY_TRANSITIONS: Final = {
    (BEFORE_OPERATION, "allowed"): "Allowed",
    (BEFORE_OPERATION, "permission-required"): "Permission Required",
    (BEFORE_OPERATION, "disallowed"): "Disallowed",
}
#: States from which the operation may be performed ("Permission Required" when granted).
POLICY_PERFORMABLE: Final = frozenset({"Allowed", "Permission Required"})
DECISION_STATE: Final = {d: POLICY_TRANSITIONS[(BEFORE_OPERATION, d)] for d in DECISIONS}

# --- Tool Invocation State Model ---------------------------------------------------------------
RUNNING: Final = "Running"
PENDING: Final = "Pending"
INPUT_REQUIRED: Final = "Input Required"
TIMED_OUT: Final = "Timed Out"
CANCEL_REQUESTED: Final = "Cancel Requested"
COMPLETED: Final = "Completed"
FAILED: Final = "Failed"
ERRORED: Final = "Errored"
DENIED: Final = "Denied"

WORKING_STATES: Final = frozenset({RUNNING, PENDING, INPUT_REQUIRED})
ACTIVE_STATES: Final = WORKING_STATES | {TIMED_OUT, CANCEL_REQUESTED}
FINAL_STATES: Final = frozenset({COMPLETED, FAILED, ERRORED, DENIED})
#: All nine states, in the order the draft lists them.
STATES: Final = (
    RUNNING, PENDING, INPUT_REQUIRED, TIMED_OUT, CANCEL_REQUESTED,
    COMPLETED, FAILED, ERRORED, DENIED,
)

START: Final = None  # "(start of an attempt)": no state yet
UNCHANGED: Final = "(unchanged)"
RETURN_FROM_INPUT: Final = "(state from which the input was requested)"

#: Tool Invocation State Transitions: type -> (allowed from-states, to-state).
TOOL_TRANSITIONS: Final[dict[str, tuple[frozenset[str | None], str]]] = {
    "tool-invocation": (frozenset({START}), RUNNING),
    "tool-pending": (frozenset({RUNNING}), PENDING),
    "tool-progress": (frozenset({RUNNING, PENDING, TIMED_OUT, CANCEL_REQUESTED}), UNCHANGED),
    "tool-input": (frozenset({RUNNING, PENDING}), INPUT_REQUIRED),
    "tool-input-response": (frozenset({INPUT_REQUIRED}), RETURN_FROM_INPUT),
    "tool-timeout": (frozenset(WORKING_STATES), TIMED_OUT),
    "tool-cancel": (frozenset(WORKING_STATES | {TIMED_OUT}), CANCEL_REQUESTED),
    "tool-result": (frozenset(ACTIVE_STATES), COMPLETED),
    "tool-failure": (frozenset(ACTIVE_STATES), FAILED),
    "tool-error": (frozenset(ACTIVE_STATES), ERRORED),
    "tool-denied": (frozenset(ACTIVE_STATES), DENIED),
}

#: States tool-input-response may return to; anything else returns to Running.
INPUT_RETURN_STATES: Final = frozenset({RUNNING, PENDING})

#: Responses from the tool: these can be late. Events sent by the agent never are.
TOOL_RESPONSE_TYPES: Final = frozenset(
    {"tool-pending", "tool-progress", "tool-input", "tool-result", "tool-failure",
     "tool-error", "tool-denied"}
)
AGENT_SENT_TYPES: Final = frozenset(
    {"tool-invocation", "tool-input-response", "tool-timeout", "tool-cancel"}
)
#: States during which a tool response is late (the agent stopped waiting or asked to stop).
LATE_STATES: Final = frozenset({TIMED_OUT, CANCEL_REQUESTED})


def outcome_name(state: str) -> str:
    """'Cancel Requested' -> 'cancel-requested' (README: "Outcome")."""
    return state.lower().replace(" ", "-")


#: Outcome of an operation with no attempt (README: "Outcome"), and of one whose last
#: attempt has no final state.
DISALLOWED_OUTCOME: Final = "disallowed"
NOT_PERFORMED_OUTCOME: Final = "not-performed"
UNKNOWN_OUTCOME: Final = "unknown"
#: Every outcome the model gives (what the viewer's outcome: filter accepts).
OUTCOMES: Final = (*(outcome_name(s) for s in STATES), DISALLOWED_OUTCOME, NOT_PERFORMED_OUTCOME,
                   UNKNOWN_OUTCOME)


# --- Findings (README, How vcon-view reads the drafts) -----------------------------------
class FindingKind(msgspec.Struct, frozen=True):
    """One finding kind and every name it goes by: the rows, the findings screen, the reports,
    ``--fail-on`` and the filter all read this table, so a label shown is a name accepted."""

    name: str  # the kind itself (findings screen, reports, --fail-on)
    severity: str
    label: str  # its row label on the timeline
    short: str  # the row label on a narrow terminal
    aliases: tuple[str, ...] = ()  # further names the filter accepts
    row: int | None = None  # place among the row labels (most serious first); None: not shown


FINDING_TABLE: Final = (
    FindingKind("policy-violation", "error", "violation", "viol", row=0),
    FindingKind("duplicate-execution-risk", "warning", "duplicate", "dup", row=5),
    FindingKind("late-response", "warning", "late", "late", row=1),
    # Short labels are at most SHORT_MAX cells, so the rows' flag column never cuts one; the
    # earlier ones stay aliases (``oom`` read as "out of memory", so it is no longer shown).
    FindingKind("out-of-model", "warning", "out-of-model", "stray", ("oom",), row=3),
    FindingKind("unterminated", "warning", "unterminated", "open", ("unterm",), row=4),
    FindingKind("decision-after-invocation", "warning", "decided-late", "dlate", ("dec-late",),
                row=6),
    FindingKind("permission-inferred", "info", "permission-inferred", "perm"),
    FindingKind("standing-conflict", "info", "conflict", "confl", row=7),
    FindingKind("retry", "info", "retry", "retry"),
    FindingKind("escalation", "info", "escalation", "esc", row=2),
)
#: The widest short label: the rows' flag column is this plus one cell for the "+" more-mark.
SHORT_MAX: Final = 5
FINDING_SEVERITY: Final = {k.name: k.severity for k in FINDING_TABLE}
FINDING_KINDS: Final = tuple(FINDING_SEVERITY)


def finding_names(kind: FindingKind) -> tuple[str, ...]:
    """Every name of a kind, the label first: label, short label, the kind, aliases."""
    return tuple(dict.fromkeys((kind.label, kind.short, kind.name, *kind.aliases)))


#: Any name of a finding kind (lower case) -> the kind.
FINDING_BY_NAME: Final = {n: k.name for k in FINDING_TABLE for n in finding_names(k)}


# --- Signatures (viewer/signatures.py) ------------------------------------------------------
#: The one vocabulary of signature verification: each status a signature of a signed layer can
#: have -> (the diagnostic code it is reported under, its severity, what it means). The summary
#: JSON's ``source.signatures[].verified``, the reports, the viewer and ``check`` all use it.
SIGNATURE_STATUSES: Final[dict[str, tuple[str, Severity, str]]] = {
    "verified": (
        "signature-verified", "info",
        "signature good, and its x5c chain reaches a trust anchor given with --trust"),
    "valid-signature-untrusted": (
        "signature-untrusted", "info",
        "signature good and its x5c chain consistent, but the chain reaches no trust anchor "
        "given with --trust (or none was given)"),
    "invalid": (
        "signature-invalid", "error",
        "the signature, its algorithm, or its x5c chain (a link, a date) fails: the signed "
        "bytes or the certificates are not what was signed, or are not acceptable"),
    "unverifiable": (
        "signature-not-verified", "warning",
        "a signature vcon-view could not verify: no key material in the file (x5u only is "
        "never fetched)"),
}
#: ``check --require-signature`` failed: the vCon is unsigned or a signature is not verified.
SIGNATURE_REQUIRED: Final = "signature-required"
VERIFIED: Final = "verified"

# --- Diagnostics (README, Conformance diagnostics) ------------------------------------------
#: Stable diagnostic codes and what each means. Codes never change meaning once released.
DIAGNOSTIC_CODES: Final = {
    "missing-required": "an M parameter is absent",
    "forbidden-parameter": "an X parameter is present",
    "missing-recommended": "an S parameter is absent (not in a redacted vCon)",
    "invalid-type": "a parameter has the wrong JSON type",
    "invalid-value": "a value outside the draft's value set",
    "index-out-of-range": "an index into parties, sessions or attachments that does not exist",
    "content-body-and-url": "body and url both present",
    "content-encoding-missing": "inline content with a non-empty body and no encoding",
    "content-mediatype-missing": "inline content with no mediatype",
    "content-hash-missing": "external content (url) without content_hash",
    "content-hash-invalid": "content_hash is not alg-base64urldigest (sha512 required)",
    "content-body-invalid": "the body cannot be decoded by its encoding",
    "extension-not-listed": "tool-lifecycle events present but extensions lacks tool-invocation",
    "operation-id-not-unique": "two operations share one operation_id",
    "operation-target-mismatch": "a later tool-invocation names another server/tool",
    "attempt-gap": "attempt numbers do not start at 1 or skip a number",
    "attempt-order": "a later attempt was invoked before an earlier one",
    "time-unparsable": "time is not an RFC 3339 date-time",
    "time-no-offset": "time has no zone offset (read as UTC)",
    "utf8-bom": "the file starts with a UTF-8 byte order mark",
    "legacy-parameter": "a parameter name from an older vCon generation",
    "critical-unsupported": "critical names an extension vcon-view does not support",
    "invalid-structure": "a top-level vCon member has the wrong shape",
    **{code: meaning for code, _sev, meaning in SIGNATURE_STATUSES.values()},
    "derived-events": "no tool-invocation events: operations were lifted from an older shape",
    "derived-warning": "something in the older shape could not be lifted",
    "derived-failed": "operations could not be lifted from the older shape",
    "suspicious-text": "an identifier (operation_id, server, tool, party name) carries a "
                       "control, bidi, default-ignorable or blank-looking character",
    "duplicate-key": "a JSON object names one key twice: readers keep only one of the values",
}

SEVERITIES: Final = ("error", "warning", "info")
SEVERITY_RANK: Final = {"error": 0, "warning": 1, "info": 2}
