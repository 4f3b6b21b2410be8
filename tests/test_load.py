"""The loader (README, *Input forms*): every input form, every refusal, never a traceback."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import viewer.load as load_mod
from viewer.load import Loaded, LoadError, load_bytes, load_path
from viewer.textsafe import is_safe

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures" / "load"
SHARED = ROOT.parent / "shared"

SIGNED = FIX / "core-draft__ab_call_ext_rec_signed.vcon"
ENCRYPTED = FIX / "core-draft__ab_call_ext_rec_encrypted.vcon"
ENCRYPTED_2024 = FIX / "petrie-2024__ab_call_ext_rec_encrypted.vcon"
AGENT_SESSION = FIX / "agent-session__paired-agent-session.json"
SAMPLE = FIX / "vcon-mcp__example1_sample.vcon"
SIGNED_UUID = "019f15a6-a752-826f-b9a2-279e0d16bc46"

MINIMAL: dict[str, Any] = {
    "vcon": "0.4.0",
    "uuid": "0195a1b2-0000-8000-8000-000000000001",
    "extensions": ["tool-invocation"],
    "events": [],
}


def b64u(data: bytes, *, pad: bool = False) -> str:
    s = base64.urlsafe_b64encode(data).decode("ascii")
    return s if pad else s.rstrip("=")


def jws(inner: bytes, **header: Any) -> dict[str, Any]:
    """A JWS General JSON wrapper around ``inner`` (signature bytes are dummies)."""
    protected = b64u(orjson.dumps({"alg": header.pop("alg", "RS256")}))
    return {
        "payload": b64u(inner),
        "signatures": [{"protected": protected, "header": header, "signature": b64u(b"sig")}],
    }


def dumps(obj: Any) -> bytes:
    return orjson.dumps(obj)


def one_line(e: LoadError) -> None:
    assert "\n" not in e.message and "\r" not in e.message
    assert is_safe(e.message)
    assert str(e) == e.message


# --- unsigned, gzip, BOM --------------------------------------------------------------------


def test_unsigned_minimal() -> None:
    data = dumps(MINIMAL)
    loaded = load_bytes(data, name="m.json")
    assert isinstance(loaded, Loaded)
    assert loaded.vcon == MINIMAL
    src = loaded.source
    assert src.file == "m.json"
    assert src.form == "unsigned"
    assert src.sha256 == hashlib.sha256(data).hexdigest()
    assert src.size == len(data)
    assert src.gzip is False
    assert src.uuid == MINIMAL["uuid"]
    assert src.extensions == ("tool-invocation",)
    assert src.critical == ()
    assert src.unsupported_critical == ()
    assert src.critical_override is False
    assert src.signatures == ()
    assert src.signed_layers == 0
    assert loaded.diagnostics == ()


def test_gzip_file(tmp_path: Path) -> None:
    raw = dumps(MINIMAL)
    packed = gzip.compress(raw)
    p = tmp_path / "v.json.gz"
    p.write_bytes(packed)
    loaded = load_path(str(p))
    assert loaded.vcon == MINIMAL
    assert loaded.source.gzip is True
    assert loaded.source.sha256 == hashlib.sha256(packed).hexdigest()  # before gunzip
    assert loaded.source.size == len(packed)


def test_gzip_multi_member() -> None:
    raw = dumps(MINIMAL)
    packed = gzip.compress(raw[:10]) + gzip.compress(raw[10:])
    assert load_bytes(packed).vcon == MINIMAL


@pytest.mark.parametrize(
    "data",
    [
        b"\x1f\x8b\x08\x00garbage-not-deflate",
        gzip.compress(b'{"uuid": "x"}')[:-12],  # truncated
        gzip.compress(b'{"uuid": "x"}') + b"trailing",
        b"\x1f\x8b",
    ],
)
def test_corrupt_gzip(data: bytes) -> None:
    with pytest.raises(LoadError) as ei:
        load_bytes(data, name="c.gz")
    assert ei.value.exit_code == 2
    assert ei.value.message.startswith("c.gz: ")
    assert "gzip" in ei.value.message
    one_line(ei.value)


def test_gzip_bomb_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load_mod, "MAX_DECOMPRESSED", 1000)
    bomb = gzip.compress(b'{"uuid": "' + b"a" * 5000 + b'"}')
    with pytest.raises(LoadError) as ei:
        load_bytes(bomb, name="bomb.gz")
    assert "more than" in ei.value.message and "refused" in ei.value.message
    one_line(ei.value)
    # just under the limit still loads
    ok = gzip.compress(b'{"uuid": "' + b"a" * 900 + b'"}')
    assert load_bytes(ok).source.uuid == "a" * 900


def test_bom_skipped_with_warning() -> None:
    loaded = load_bytes(b"\xef\xbb\xbf" + dumps(MINIMAL))
    assert loaded.vcon == MINIMAL
    assert [(d.code, d.severity, d.pointer) for d in loaded.diagnostics] == [
        ("utf8-bom", "warning", "")
    ]


def test_bom_inside_gzip() -> None:
    loaded = load_bytes(gzip.compress(b"\xef\xbb\xbf" + dumps(MINIMAL)))
    assert loaded.vcon == MINIMAL
    assert loaded.source.gzip
    assert [d.code for d in loaded.diagnostics] == ["utf8-bom"]


# --- refusals: not JSON, not a vCon ----------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "expect"),
    [
        (b'{\n  "uuid": "x",\n  "dialog": [', "not JSON (unexpected end of data at line 3"),
        (b"[1, 2", "not JSON (unexpected end of data"),
        (b"", "not JSON (empty input)"),
        (b"hello", "not JSON (unexpected character"),
        (b'{"uuid": NaN}', "not JSON (unexpected character"),
        (b"NaN", "not JSON"),
        (b'{"uuid": Infinity}', "not JSON"),
        (b'{"uuid": "\xff\xfe"}', "not JSON (str is not valid UTF-8"),
        (b'{"events": ' + b"[" * 2000 + b"]" * 2000 + b"}", "not JSON (depth limit exceeded"),
        (b"[]", "not a vCon (a JSON array"),
        (b'[{"uuid": "x"}]', "not a vCon (a JSON array"),
        (b'"a string"', "not a vCon (a JSON scalar"),
        (b"42", "not a vCon (a JSON scalar"),
        (b"null", "not a vCon (a JSON scalar"),
        (b"{}", "not a vCon"),
        (b'{"name": "x", "foo": [1]}', "not a vCon"),
        (b'{"uuid": null}', "not a vCon"),  # null counts as absent
        (b"\xff\xfe{\x00}\x00", "not JSON"),  # UTF-16
    ],
)
def test_refused_with_one_line(data: bytes, expect: str) -> None:
    with pytest.raises(LoadError) as ei:
        load_bytes(data, name="x.json")
    assert ei.value.exit_code == 2
    assert ei.value.message.startswith("x.json: " + expect), ei.value.message
    one_line(ei.value)


def test_not_json_names_position() -> None:
    with pytest.raises(LoadError) as ei:
        load_bytes(b'{\n  "a": 1,\n  "b": }', name="x.json")
    assert ei.value.message == (
        "x.json: not JSON (unexpected character, expected a JSON value at line 3 column 8)"
    )


def test_stdin_named_in_messages() -> None:
    with pytest.raises(LoadError) as ei:
        load_bytes(b"nope")
    assert ei.value.message.startswith("stdin: not JSON")


def test_name_with_control_characters_is_neutralised() -> None:
    with pytest.raises(LoadError) as ei:
        load_bytes(b"[]", name="evil\x1b]52;c;x\x07.json")
    one_line(ei.value)
    assert "\\x1b" in ei.value.message


# --- files and stdin -------------------------------------------------------------------------


def test_load_path_fixture_and_hash_unchanged() -> None:
    before = hashlib.sha256(SAMPLE.read_bytes()).hexdigest()
    mtime = SAMPLE.stat().st_mtime_ns
    loaded = load_path(str(SAMPLE))
    assert loaded.source.file == str(SAMPLE)
    assert loaded.source.sha256 == before
    assert loaded.source.uuid == "SAMPLE-1234-abcd-5678"
    assert hashlib.sha256(SAMPLE.read_bytes()).hexdigest() == before
    assert SAMPLE.stat().st_mtime_ns == mtime


def test_input_file_never_written(tmp_path: Path) -> None:
    p = tmp_path / "bom.json"
    data = b"\xef\xbb\xbf" + dumps(MINIMAL)
    p.write_bytes(data)
    p.chmod(0o444)
    load_path(str(p))
    assert p.read_bytes() == data


def test_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    data = dumps(MINIMAL)

    class FakeStdin:
        buffer = io.BytesIO(data)

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    loaded = load_path("-")
    assert loaded.vcon == MINIMAL
    assert loaded.source.file == "-"
    assert loaded.source.sha256 == hashlib.sha256(data).hexdigest()


def test_stdin_without_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    with pytest.raises(LoadError) as ei:
        load_path("-")
    assert ei.value.message.startswith("stdin: ")


def test_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "nope.json"
    with pytest.raises(LoadError) as ei:
        load_path(str(p))
    assert ei.value.message == f"{p}: no such file"
    assert ei.value.exit_code == 2


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(LoadError) as ei:
        load_path(str(tmp_path))
    assert ei.value.message == f"{tmp_path}: is a directory, not a file"
    assert ei.value.exit_code == 2


def test_unreadable(tmp_path: Path) -> None:
    p = tmp_path / "secret.json"
    p.write_bytes(dumps(MINIMAL))
    p.chmod(0)
    try:
        try:
            with open(p, "rb"):
                pass
        except PermissionError:
            pass
        else:
            pytest.skip("running with privileges that read mode-000 files (root)")
        with pytest.raises(LoadError) as ei:
            load_path(str(p))
        assert ei.value.message == f"{p}: permission denied"
    finally:
        p.chmod(0o600)


def test_permission_error_mapped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Also when running as root: the OS refusal becomes one line."""

    def deny(*a: Any, **k: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("builtins.open", deny)
    with pytest.raises(LoadError) as ei:
        load_path("/some/file.json")
    assert ei.value.message == "/some/file.json: permission denied"


def test_memory_error_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    class Huge:
        def read(self) -> bytes:
            raise MemoryError

    class FakeStdin:
        buffer = Huge()

    monkeypatch.setattr(sys, "stdin", FakeStdin())
    with pytest.raises(LoadError) as ei:
        load_path("-")
    assert ei.value.message == "stdin: too large for memory"

    def boom(_: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(load_mod, "loads", boom)  # the JSON reader the loader uses
    with pytest.raises(LoadError) as ei:
        load_bytes(b"{}", name="big.json")
    assert ei.value.message == "big.json: too large for memory"


def test_other_os_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def eio(*a: Any, **k: Any) -> Any:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("builtins.open", eio)
    with pytest.raises(LoadError) as ei:
        load_path("f.json")
    assert ei.value.message == "f.json: cannot read (Input/output error)"


# --- signed ----------------------------------------------------------------------------------


def test_signed_core_draft_example() -> None:
    loaded = load_path(str(SIGNED))
    src = loaded.source
    assert src.form == "signed"
    assert src.signed_layers == 1
    assert len(src.signatures) == 1
    sig = src.signatures[0]
    assert (sig.alg, sig.x5c, sig.uuid, sig.x5u, sig.kid) == ("RS256", 3, SIGNED_UUID, None, None)
    assert loaded.vcon["uuid"] == SIGNED_UUID
    assert src.uuid == SIGNED_UUID
    assert "parties" in loaded.vcon and "payload" not in loaded.vcon
    # the signature and its x5c chain verify; no --trust anchor, so not "verified"
    assert (sig.verified, sig.layer, sig.index) == ("valid-signature-untrusted", 1, 0)
    assert [(d.code, d.severity) for d in loaded.diagnostics] == [
        ("signature-untrusted", "info")
    ]


def test_signed_uuid_falls_back_to_signature_header() -> None:
    v = {k: x for k, x in MINIMAL.items() if k != "uuid"}
    loaded = load_bytes(dumps(jws(dumps(v), uuid="from-header")))
    assert loaded.source.uuid == "from-header"
    assert load_bytes(dumps(jws(dumps(v)))).source.uuid is None


def test_signed_padding_optional() -> None:
    inner = dumps(MINIMAL)
    for pad in (False, True):
        obj = jws(inner)
        obj["payload"] = b64u(inner, pad=pad)
        loaded = load_bytes(dumps(obj))
        assert loaded.vcon == MINIMAL
        assert loaded.source.uuid == MINIMAL["uuid"]


def test_signed_gzip_payload() -> None:
    obj = jws(gzip.compress(dumps(MINIMAL)), x5u="https://example.com/c.pem", kid="k1")
    loaded = load_bytes(dumps(obj))
    assert loaded.vcon == MINIMAL
    assert loaded.source.gzip is True
    sig = loaded.source.signatures[0]
    assert (sig.alg, sig.kid, sig.x5u, sig.x5c) == ("RS256", "k1", "https://example.com/c.pem", 0)


def test_gzip_file_of_signed() -> None:
    data = gzip.compress(dumps(jws(dumps(MINIMAL))))
    loaded = load_bytes(data)
    assert loaded.source.form == "signed" and loaded.source.gzip
    assert loaded.vcon == MINIMAL


def test_nested_resigning() -> None:
    inner = jws(dumps(MINIMAL), alg="ES256", uuid="inner")
    middle = jws(dumps(inner), alg="RS256", uuid="middle")
    outer = jws(gzip.compress(dumps(middle)), alg="PS256", uuid="outer")
    loaded = load_bytes(dumps(outer))
    assert loaded.vcon == MINIMAL
    assert loaded.source.signed_layers == 3
    assert [(s.alg, s.uuid) for s in loaded.source.signatures] == [
        ("PS256", "outer"),
        ("RS256", "middle"),
        ("ES256", "inner"),
    ]
    # no key material in any layer: one "not verified" warning per signature, each naming it
    assert [(d.code, d.severity) for d in loaded.diagnostics] == [
        ("signature-not-verified", "warning")] * 3
    assert [d.message.split(":")[0] for d in loaded.diagnostics] == [
        f"signed layer {n}, signature 0" for n in (1, 2, 3)]
    assert {s.verified for s in loaded.source.signatures} == {"unverifiable"}


def test_protected_header_wins_and_x5c_counted() -> None:
    obj = jws(dumps(MINIMAL), alg="none", x5c=["a", "b"])
    obj["signatures"][0]["protected"] = b64u(dumps({"alg": "ES384", "x5c": ["a"]}))
    sig = load_bytes(dumps(obj)).source.signatures[0]
    assert (sig.alg, sig.x5c) == ("ES384", 1)


def test_signed_pointers_refer_to_innermost() -> None:
    v = dict(MINIMAL, must_support=["x"])
    loaded = load_bytes(dumps(jws(dumps(v))))
    assert ("legacy-parameter", "/must_support") in [
        (d.code, d.pointer) for d in loaded.diagnostics
    ]


@pytest.mark.parametrize(
    ("mutate", "expect"),
    [
        (lambda o: o.update(payload="!!!not base64!!!"), "payload is not base64url"),
        (lambda o: o.update(payload="abcde"), "payload is not base64url"),
        (lambda o: o.update(payload="ab+/"), "payload is not base64url"),  # standard alphabet
        (lambda o: o.update(payload="ab=c"), "payload is not base64url"),
        (lambda o: o.update(payload="ab cd"), "payload is not base64url"),
        (lambda o: o.update(payload="abc\u00e9"), "payload is not base64url"),
        (lambda o: o.update(payload=5), "payload is not a base64url string"),
        (lambda o: o.update(payload=b64u(b"not json")), "payload: not JSON"),
        (lambda o: o.update(payload=b64u(b"[1]")), "payload: not a vCon (a JSON array"),
        (lambda o: o.update(payload=b64u(b'{"foo": 1}')), "payload: not a vCon"),
        (lambda o: o.update(payload=b64u(b"\x1f\x8bxx")), "payload: corrupt gzip"),
        (
            lambda o: o["signatures"][0].update(protected="%%%"),
            "signature 0 protected header is not base64url",
        ),
        (
            lambda o: o["signatures"][0].update(protected=b64u(b"nope")),
            "signature 0 protected header is not base64url JSON",
        ),
    ],
)
def test_signed_bad_inside(mutate: Any, expect: str) -> None:
    obj = jws(dumps(MINIMAL))
    mutate(obj)
    with pytest.raises(LoadError) as ei:
        load_bytes(dumps(obj), name="s.vcon")
    assert ei.value.exit_code == 2
    assert ei.value.message.startswith("s.vcon: signed vCon (JWS)"), ei.value.message
    assert expect in ei.value.message, ei.value.message
    one_line(ei.value)


def test_signed_detected_before_unsigned() -> None:
    obj = jws(dumps(MINIMAL))
    obj["uuid"] = "outer-uuid"  # keys of several forms: signed first
    loaded = load_bytes(dumps(obj))
    assert loaded.source.form == "signed"
    assert loaded.vcon == MINIMAL


# --- encrypted -------------------------------------------------------------------------------


def test_encrypted_core_draft() -> None:
    with pytest.raises(LoadError) as ei:
        load_path(str(ENCRYPTED))
    assert ei.value.exit_code == 2
    assert ei.value.message == (
        f"{ENCRYPTED}: encrypted vCon (JWE), uuid {SIGNED_UUID}, enc A256CBC-HS512: "
        "cannot be opened without a key"
    )


def test_encrypted_petrie_2024_cyphertext_no_unprotected() -> None:
    with pytest.raises(LoadError) as ei:
        load_path(str(ENCRYPTED_2024))
    assert ei.value.exit_code == 2
    assert ei.value.message == (
        f"{ENCRYPTED_2024}: encrypted vCon (JWE), unknown uuid, enc A256CBC-HS512: "
        "cannot be opened without a key"
    )


def test_encrypted_enc_from_protected_and_uuid_from_recipient() -> None:
    obj = {
        "protected": b64u(dumps({"alg": "RSA-OAEP", "enc": "A128GCM"})),
        "ciphertext": "xx",
        "recipients": [{"header": {"uuid": "r-uuid"}, "encrypted_key": "k"}],
    }
    with pytest.raises(LoadError) as ei:
        load_bytes(dumps(obj), name="e")
    assert ei.value.message == (
        "e: encrypted vCon (JWE), uuid r-uuid, enc A128GCM: cannot be opened without a key"
    )


def test_encrypted_values_neutralised() -> None:
    obj = {
        "ciphertext": "xx",
        "recipients": [],
        "unprotected": {"uuid": "u\x1b[2J\u202e", "enc": "A\nB"},
    }
    with pytest.raises(LoadError) as ei:
        load_bytes(dumps(obj), name="e")
    one_line(ei.value)
    assert "enc A\\x0aB" in ei.value.message


def test_encrypted_unknown_everything() -> None:
    with pytest.raises(LoadError) as ei:
        load_bytes(b'{"cyphertext": "x", "recipients": "?", "protected": "%"}', name="e")
    assert ei.value.message == (
        "e: encrypted vCon (JWE), unknown uuid, enc unknown: cannot be opened without a key"
    )


def test_signed_holding_encrypted() -> None:
    enc = {"ciphertext": "x", "recipients": [], "unprotected": {"uuid": "u1", "enc": "A256GCM"}}
    with pytest.raises(LoadError) as ei:
        load_bytes(dumps(jws(dumps(enc))), name="se")
    assert ei.value.exit_code == 2
    assert "encrypted vCon (JWE), uuid u1, enc A256GCM" in ei.value.message


def test_encrypted_detected_before_unsigned() -> None:
    obj = {"ciphertext": "x", "recipients": [], "uuid": "plain"}
    with pytest.raises(LoadError, match="encrypted vCon"):
        load_bytes(dumps(obj))


# --- critical and must_support ---------------------------------------------------------------


def _unsupported_critical_file(tmp_path: Path) -> Path:
    p = tmp_path / "future.vcon.json"
    p.write_bytes(dumps(dict(MINIMAL, critical=["x-future-ext"],
                             extensions=["x-future-ext", "lawful_basis"])))
    return p


def test_critical_unsupported_refused(tmp_path: Path) -> None:
    path = _unsupported_critical_file(tmp_path)
    with pytest.raises(LoadError) as ei:
        load_path(str(path))
    assert ei.value.exit_code == 3
    assert ei.value.message == (
        f"{path}: critical extension(s) not supported by vcon-view: x-future-ext "
        "(use --ignore-critical to view anyway)"
    )


def test_critical_unsupported_overridden(tmp_path: Path) -> None:
    loaded = load_path(str(_unsupported_critical_file(tmp_path)), ignore_critical=True)
    src = loaded.source
    assert src.critical == ("x-future-ext",)
    assert src.extensions == ("x-future-ext", "lawful_basis")
    assert src.unsupported_critical == ("x-future-ext",)
    assert src.critical_override is True
    assert [(d.code, d.severity, d.pointer) for d in loaded.diagnostics] == [
        ("critical-unsupported", "warning", "/critical/0")
    ]


def test_agent_session_critical_is_supported() -> None:
    """agent_session is supported since its agent_trace analyses are lifted (issue 7)."""
    loaded = load_path(str(AGENT_SESSION))
    assert loaded.source.critical == ("agent_session",)
    assert loaded.source.unsupported_critical == ()
    assert loaded.source.critical_override is False


def test_critical_supported_is_fine() -> None:
    v = dict(MINIMAL, critical=["tool-invocation"])
    for flag in (False, True):
        loaded = load_bytes(dumps(v), ignore_critical=flag)
        assert loaded.source.critical == ("tool-invocation",)
        assert loaded.source.unsupported_critical == ()
        assert loaded.source.critical_override is False
        assert loaded.diagnostics == ()


def test_critical_several_names_pointers_and_safety() -> None:
    v = dict(MINIMAL, critical=["tool-invocation", "x\x1b[31m", 7, "y", "y"])
    with pytest.raises(LoadError) as ei:
        load_bytes(dumps(v), name="c.json")
    assert ei.value.exit_code == 3
    one_line(ei.value)
    assert "x\\x1b[31m, y (use" in ei.value.message
    loaded = load_bytes(dumps(v), ignore_critical=True)
    assert loaded.source.critical == ("tool-invocation", "x\x1b[31m", "y", "y")
    assert loaded.source.unsupported_critical == ("x\x1b[31m", "y")
    assert [d.pointer for d in loaded.diagnostics] == ["/critical/1", "/critical/3", "/critical/4"]
    assert all(is_safe(d.message) for d in loaded.diagnostics)


def test_critical_and_extensions_not_lists() -> None:
    v = dict(MINIMAL, critical="agent_session", extensions={"a": 1})
    loaded = load_bytes(dumps(v))
    assert loaded.source.critical == ()
    assert loaded.source.extensions == ()
    assert loaded.diagnostics == ()


def test_must_support_reported_not_enforced() -> None:
    v = dict(MINIMAL, must_support=["agent_session"])
    loaded = load_bytes(dumps(v))
    assert loaded.source.critical == ()
    assert [(d.code, d.severity, d.pointer) for d in loaded.diagnostics] == [
        ("legacy-parameter", "warning", "/must_support")
    ]


def test_uuid_not_a_string() -> None:
    assert load_bytes(b'{"uuid": 5}').source.uuid is None


# --- fixtures and corpus ---------------------------------------------------------------------

FIXTURE_FILES = sorted(p for p in FIX.rglob("*") if p.is_file())


def _load_or_refuse(path: Path) -> Loaded | LoadError:
    before = path.read_bytes()
    try:
        result: Loaded | LoadError = load_path(str(path))
    except LoadError as e:
        one_line(e)
        assert e.exit_code in (2, 3)
        result = e
    assert path.read_bytes() == before
    return result


def test_fixtures_present() -> None:
    assert len(FIXTURE_FILES) >= 12


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_loads_or_refuses(path: Path) -> None:
    result = _load_or_refuse(path)
    if "encrypted" in path.name:
        assert isinstance(result, LoadError) and result.exit_code == 2
    else:  # every other fixture, the invalid ones included, loads: invalid is not unreadable
        assert isinstance(result, Loaded)
        assert result.source.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def _shared_files() -> list[Path]:
    roots = [SHARED / "corpus" / "vcons", SHARED / "spec" / "core" / "examples"]
    return sorted(p for r in roots if r.is_dir() for p in r.rglob("*") if p.is_file())


@pytest.mark.skipif(not (SHARED / "corpus").is_dir(), reason="/work/shared is absent")
def test_shared_corpus_loads_or_refuses() -> None:
    files = _shared_files()
    assert files
    loaded = 0
    for p in files:
        if isinstance(_load_or_refuse(p), Loaded):
            loaded += 1
    assert loaded >= len(files) - 5  # the encrypted ones are refused


# --- property tests --------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(
        st.sampled_from(
            [
                "uuid", "vcon", "critical", "extensions", "payload", "signatures",
                "ciphertext", "cyphertext", "recipients", "unprotected", "protected",
                "header", "must_support", "enc", "alg", "x5c",
            ]
        )
        | st.text(max_size=5),
        children,
        max_size=5,
    ),
    max_leaves=20,
)  # fmt: skip


def _only_load_error(data: bytes, ignore_critical: bool) -> None:
    try:
        loaded = load_bytes(data, ignore_critical=ignore_critical)
    except LoadError as e:
        one_line(e)
        assert e.exit_code in (2, 3)
    else:
        assert isinstance(loaded.vcon, dict)
        assert loaded.source.sha256 == hashlib.sha256(data).hexdigest()


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.binary(max_size=200), st.booleans())
def test_random_bytes_only_load_error(data: bytes, ignore: bool) -> None:
    _only_load_error(data, ignore)
    _only_load_error(b"\x1f\x8b" + data, ignore)
    _only_load_error(gzip.compress(data), ignore)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(json_values, st.booleans(), st.booleans())
def test_random_json_only_load_error(value: Any, ignore: bool, wrap: bool) -> None:
    data = orjson.dumps(value)
    if wrap:  # also as the payload of a JWS, where the value's own keys reach deeper code
        data = orjson.dumps(
            {"payload": b64u(data), "signatures": value if isinstance(value, list) else [value]}
        )
    _only_load_error(data, ignore)


def test_loader_codes_are_documented() -> None:
    """Every code the loader emits is one of the spec module's stable diagnostic codes."""
    from viewer.model.spec import DIAGNOSTIC_CODES

    v = dict(MINIMAL, critical=["x-future-ext"], must_support=["x"])
    data = b"\xef\xbb\xbf" + dumps(jws(dumps(v)))
    codes = {d.code for d in load_bytes(data, ignore_critical=True).diagnostics}
    assert codes == {
        "utf8-bom",
        "critical-unsupported",
        "legacy-parameter",
        "signature-not-verified",
    }
    assert codes <= set(DIAGNOSTIC_CODES)


def test_big_input_hashed_on_a_thread_gives_the_same_digest() -> None:
    import hashlib

    from viewer import load

    body = b'{"vcon": "0.4.0", "uuid": "u", "dialog": [], "pad": "' + b"x" * (2 << 20) + b'"}'
    assert len(body) >= load.HASH_IN_THREAD
    assert load.load_bytes(body).source.sha256 == hashlib.sha256(body).hexdigest()
    small = b'{"vcon": "0.4.0", "uuid": "u"}'
    assert load.load_bytes(small).source.sha256 == hashlib.sha256(small).hexdigest()
