"""Signature verification (viewer/signatures.py): the core draft's signed example, tampered
copies of it, and signatures made here with keys and certificates generated here."""

from __future__ import annotations

import base64
import copy
import json
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viewer import signatures as sigs
from viewer.cli import main
from viewer.load import LoadError, load_bytes, load_path
from viewer.model.build import build_model
from viewer.model.spec import DIAGNOSTIC_CODES, SIGNATURE_STATUSES
from viewer.report.markdown import to_markdown
from viewer.report.summary import summary_dict
from viewer.report.text import to_text
from viewer.signatures import TrustError, TrustStore, describe

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
SIGNED = FIX / "load" / "core-draft__ab_call_ext_rec_signed.vcon"
SIGNED_ROOT = FIX / "signatures" / "core-draft-root.pem"
DEMO = ROOT / "demo_vcons" / "10-signed.vcon.json"
DEMO_ROOT = ROOT / "demo_vcons" / "10-signed.root.pem"

UNTRUSTED, VERIFIED, INVALID, UNVERIFIABLE = (
    "valid-signature-untrusted", "verified", "invalid", "unverifiable")

VCON: dict[str, Any] = {
    "vcon": "0.4.0",
    "uuid": "0195a1b2-0000-8000-8000-00000000000a",
    "created_at": "2026-01-01T00:00:00Z",
    "parties": [],
    "extensions": ["tool-invocation"],
    "events": [],
}


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64u(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


# --- a small PKI made here ------------------------------------------------------------------

T0 = datetime(2020, 1, 1, tzinfo=UTC)
T1 = datetime(2040, 1, 1, tzinfo=UTC)


def new_key(kind: str) -> Any:
    if kind.startswith("rsa"):
        return rsa.generate_private_key(public_exponent=65537, key_size=int(kind[3:]))
    if kind in ("p256", "p384", "p521"):
        curve = {"p256": ec.SECP256R1, "p384": ec.SECP384R1, "p521": ec.SECP521R1}[kind]
        return ec.generate_private_key(curve())
    return {"ed25519": ed25519.Ed25519PrivateKey, "ed448": ed448.Ed448PrivateKey}[kind].generate()


def name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "vcon-view tests"),
                      x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def new_cert(cn: str, key: Any, issuer_cn: str, issuer_key: Any, *, ca: bool,
             start: datetime = T0, end: datetime = T1, usage: bool = True,
             basic: bool = True, path_length: int | None = None) -> x509.Certificate:
    b = (x509.CertificateBuilder().subject_name(name(cn)).issuer_name(name(issuer_cn))
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(start).not_valid_after(end))
    if basic:
        b = b.add_extension(x509.BasicConstraints(ca=ca, path_length=path_length if ca else None),
                            critical=True)
    if usage:
        b = b.add_extension(x509.KeyUsage(
            digital_signature=not ca, content_commitment=False, key_encipherment=False,
            data_encipherment=False, key_agreement=False, key_cert_sign=ca, crl_sign=ca,
            encipher_only=False, decipher_only=False), critical=True)
    algo = None if isinstance(issuer_key, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)) \
        else hashes.SHA256()
    return b.sign(issuer_key, algo)


@dataclass
class Signer:
    key: Any
    chain: list[x509.Certificate]  # leaf first


@dataclass
class PKI:
    root_key: Any
    root: x509.Certificate
    inter_key: Any
    inter: x509.Certificate
    leaves: dict[str, Signer]

    def signer(self, kind: str) -> Signer:
        return self.leaves[kind]

    def pem(self, *certs: x509.Certificate) -> bytes:
        return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs)

    def trust(self) -> TrustStore:
        return TrustStore.from_certificates([self.root], "root.pem")


KINDS = ("rsa2048", "p256", "p384", "p521", "ed25519", "ed448")


@pytest.fixture(scope="module")
def pki() -> PKI:
    root_key = new_key("rsa2048")
    root = new_cert("Test Root", root_key, "Test Root", root_key, ca=True)
    inter_key = new_key("p384")
    inter = new_cert("Test Intermediate", inter_key, "Test Root", root_key, ca=True)
    leaves = {}
    for kind in KINDS:
        k = new_key(kind)
        leaves[kind] = Signer(k, [new_cert(f"Signer {kind}", k, "Test Intermediate", inter_key,
                                           ca=False), inter, root])
    return PKI(root_key, root, inter_key, inter, leaves)


def raw_signature(key: Any, alg: str, data: bytes) -> bytes:
    h = {"256": hashes.SHA256(), "384": hashes.SHA384(), "512": hashes.SHA512()}.get(alg[2:])
    if alg.startswith("RS"):
        return key.sign(data, padding.PKCS1v15(), h)
    if alg.startswith("PS"):
        return key.sign(data, padding.PSS(mgf=padding.MGF1(h), salt_length=h.digest_size), h)
    if alg.startswith("ES"):
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(h)))
        n = (key.curve.key_size + 7) // 8
        return r.to_bytes(n, "big") + s.to_bytes(n, "big")
    return key.sign(data)


def x5c_of(chain: list[x509.Certificate]) -> list[str]:
    return [base64.b64encode(c.public_bytes(serialization.Encoding.DER)).decode() for c in chain]


def sign(payload: bytes, signer: Signer, alg: str, *, protected: dict[str, Any] | None = None,
         header: dict[str, Any] | None = None, x5c: list[str] | None = None) -> dict[str, Any]:
    """A JWS General JSON object: x5c in the unprotected header, as the core draft asks."""
    prot = b64u(orjson.dumps({"alg": alg, **(protected or {})}))
    pay = b64u(payload)
    sig = raw_signature(signer.key, alg, f"{prot}.{pay}".encode())
    hdr = {"x5c": x5c if x5c is not None else x5c_of(signer.chain), **(header or {})}
    return {"payload": pay, "signatures": [{"protected": prot, "header": hdr,
                                            "signature": b64u(sig)}]}


def results(obj: dict[str, Any] | bytes, trust: TrustStore | None = None,
            at: datetime | None = None) -> tuple[sigs.LayerResult, ...]:
    return sigs.verify_source(obj, trust, at)


def one(obj: dict[str, Any] | bytes, trust: TrustStore | None = None,
        at: datetime | None = None) -> sigs.LayerResult:
    (r,) = results(obj, trust, at)
    return r


# --- the core draft's signed example --------------------------------------------------------


def core() -> dict[str, Any]:
    return json.loads(SIGNED.read_bytes())


def test_core_example_untrusted_without_trust() -> None:
    r = one(SIGNED.read_bytes())
    assert r.verified == UNTRUSTED
    assert (r.alg, r.layer, r.index, len(r.chain)) == ("RS256", 1, 0, 3)
    assert sigs.short_name(r.subject) == "CN=grp.div.fakevcon.io"
    assert [sigs.short_name(c) for c in r.chain] == [
        "CN=grp.div.fakevcon.io", "CN=div.fakevcon.io", "CN=fakevcon.io"]
    assert r.time_source == "now"  # no created_at or updated_at in the example
    assert "--trust" in (r.reason or "")
    assert r.anchor is None


def test_core_example_verified_with_its_root_as_anchor(tmp_path: Path) -> None:
    store = TrustStore.load(str(SIGNED_ROOT))
    r = one(SIGNED.read_bytes(), store)
    assert r.verified == VERIFIED and r.reason is None
    assert sigs.short_name(r.anchor) == "CN=fakevcon.io"
    # a folder of anchors works the same (and ignores files of other kinds)
    (tmp_path / "README.txt").write_text("not a certificate")
    (tmp_path / "root.crt").write_bytes(SIGNED_ROOT.read_bytes())
    assert one(SIGNED.read_bytes(), TrustStore.load(str(tmp_path))).verified == VERIFIED


def test_core_example_with_an_intermediate_as_anchor() -> None:
    chain = json.loads(unb64u(core()["signatures"][0]["protected"]))["x5c"]
    middle = x509.load_der_x509_certificate(base64.b64decode(chain[1]))
    r = one(SIGNED.read_bytes(), TrustStore.from_certificates([middle]))
    assert r.verified == VERIFIED and sigs.short_name(r.anchor) == "CN=div.fakevcon.io"


def test_core_example_other_anchor_stays_untrusted(pki: PKI) -> None:
    r = one(SIGNED.read_bytes(), pki.trust())
    assert r.verified == UNTRUSTED
    assert "reaches none of the 1 trust anchor(s)" in (r.reason or "")


def _change_payload_byte(obj: dict[str, Any]) -> dict[str, Any]:
    raw = bytearray(unb64u(obj["payload"]))
    i = raw.index(b'"name"') + 9  # inside the first party's name: still JSON, still a vCon
    raw[i] ^= 0x01
    obj["payload"] = b64u(bytes(raw))
    return obj


def test_core_example_one_payload_byte_changed_is_invalid() -> None:
    obj = _change_payload_byte(core())
    r = one(obj)
    assert r.verified == INVALID
    assert "does not match the signed bytes" in (r.reason or "")
    # whatever the anchors: a changed payload is never verified
    assert one(obj, TrustStore.load(str(SIGNED_ROOT))).verified == INVALID


def test_core_example_swapped_certificate_is_invalid(pki: PKI) -> None:
    other = x5c_of([pki.signer("rsa2048").chain[0]])[0]
    # in the unprotected header only: it now disagrees with the protected one
    obj = core()
    obj["signatures"][0]["header"]["x5c"][0] = other
    r = one(obj)
    assert r.verified == INVALID and "differs between the protected" in (r.reason or "")
    # in both headers: the protected header is signed, so the signature breaks
    obj = core()
    prot = json.loads(unb64u(obj["signatures"][0]["protected"]))
    prot["x5c"][0] = other
    obj["signatures"][0]["protected"] = b64u(json.dumps(prot).encode())
    obj["signatures"][0]["header"]["x5c"][0] = other
    r = one(obj)
    assert r.verified == INVALID and "does not match" in (r.reason or "")


def test_core_example_expired_chain_is_invalid() -> None:
    r = one(SIGNED.read_bytes(), TrustStore.load(str(SIGNED_ROOT)),
            at=datetime(2033, 1, 1, tzinfo=UTC))
    assert r.verified == INVALID
    assert "expired on 2032-06-01T01:43:25Z" in (r.reason or "")
    assert r.time_source == "given"
    r = one(SIGNED.read_bytes(), at=datetime(2021, 1, 1, tzinfo=UTC))
    assert r.verified == INVALID and "not valid before" in (r.reason or "")


@pytest.mark.parametrize("alg", ["none", "HS256", "ES256K", "RS1", 7])
def test_core_example_alg_none_and_unknown_refused(alg: Any) -> None:
    obj = core()
    prot = json.loads(unb64u(obj["signatures"][0]["protected"]))
    prot["alg"] = alg
    obj["signatures"][0]["protected"] = b64u(json.dumps(prot).encode())
    obj["signatures"][0]["header"]["alg"] = alg
    r = one(obj)
    assert r.verified == INVALID
    assert ("alg none" if alg == "none" else "is not supported") in (r.reason or "")


def test_core_example_in_check_and_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SIGNED)]) == 0
    out = capsys.readouterr().out
    assert "info     signature-untrusted" in out
    assert main(["check", str(SIGNED), "--require-signature"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("error    signature-required  -  --require-signature: not every")
    assert main(["check", str(SIGNED), "--require-signature", "--trust", str(SIGNED_ROOT)]) == 0
    assert "signature-verified" in capsys.readouterr().out
    assert main(["summary", str(SIGNED), "-f", "json", "--trust", str(SIGNED_ROOT)]) == 0
    doc = json.loads(capsys.readouterr().out)
    (g,) = doc["source"]["signatures"]
    assert g["verified"] == "verified" and g["anchor"].endswith("C=US")
    assert g["time_source"] == "now" and g["checked_at"].endswith("Z")
    assert len(g["chain"]) == 3 and g["reason"] is None


# --- signatures made here -------------------------------------------------------------------

ALG_KEYS = [
    ("RS256", "rsa2048"), ("RS384", "rsa2048"), ("RS512", "rsa2048"),
    ("PS256", "rsa2048"), ("PS384", "rsa2048"), ("PS512", "rsa2048"),
    ("ES256", "p256"), ("ES384", "p384"), ("ES512", "p521"),
    ("EdDSA", "ed25519"), ("EdDSA", "ed448"),
]


@pytest.mark.parametrize(("alg", "kind"), ALG_KEYS)
def test_every_algorithm_verifies(pki: PKI, alg: str, kind: str) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer(kind), alg)
    r = one(obj, pki.trust())
    assert r.verified == VERIFIED, r.reason
    assert (r.alg, sigs.short_name(r.subject), sigs.short_name(r.anchor)) == (
        alg, f"CN=Signer {kind}", "CN=Test Root")
    assert r.time_source == "created_at" and r.checked_at == datetime(2026, 1, 1, tzinfo=UTC)
    assert one(obj).verified == UNTRUSTED
    tampered = copy.deepcopy(obj)
    tampered["payload"] = b64u(orjson.dumps({**VCON, "uuid": VCON["uuid"][:-1] + "b"}))
    r = one(tampered, pki.trust())
    assert r.verified == INVALID and "does not match" in (r.reason or "")


@pytest.mark.parametrize(("alg", "kind", "expect"), [
    ("ES256", "rsa2048", "needs an EC secp256r1 key; the x5c leaf has an RSA 2048-bit key"),
    ("ES384", "p256", "needs an EC secp384r1 key; the x5c leaf has an EC secp256r1 key"),
    ("RS256", "p256", "needs an RSA key"),
    ("EdDSA", "p256", "needs an Ed25519 or Ed448 key"),
    ("PS256", "ed25519", "needs an RSA key; the x5c leaf has an Ed25519 key"),
])
def test_key_that_does_not_fit_the_alg(pki: PKI, alg: str, kind: str, expect: str) -> None:
    signer = pki.signer(kind)
    prot = b64u(orjson.dumps({"alg": alg}))
    obj = {"payload": b64u(orjson.dumps(VCON)), "signatures": [
        {"protected": prot, "header": {"x5c": x5c_of(signer.chain)}, "signature": b64u(b"x")}]}
    r = one(obj)
    assert r.verified == INVALID and expect in (r.reason or ""), r.reason


def test_short_rsa_key_refused(pki: PKI) -> None:
    key = new_key("rsa1024")
    leaf = new_cert("Weak", key, "Test Intermediate", pki.inter_key, ca=False)
    r = one(sign(orjson.dumps(VCON), Signer(key, [leaf, pki.inter, pki.root]), "RS256"),
            pki.trust())
    assert r.verified == INVALID and "1024 bits" in (r.reason or "")


def test_es_signature_of_the_wrong_length(pki: PKI) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    raw = unb64u(obj["signatures"][0]["signature"])
    obj["signatures"][0]["signature"] = b64u(raw + b"\x00")
    r = one(obj)
    assert r.verified == INVALID and "65 bytes, not the 64" in (r.reason or "")


def test_swapped_leaf_certificate(pki: PKI) -> None:
    """x5c in the unprotected header (as the core draft asks): a swapped leaf is caught by the
    signature, not by the chain."""
    other = pki.signer("rsa2048")
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    obj["signatures"][0]["header"]["x5c"] = x5c_of(other.chain)
    r = one(obj, pki.trust())
    assert r.verified == INVALID
    assert "needs an EC secp256r1 key" in (r.reason or "")
    # same key type, another key: the signature does not match
    key = new_key("p256")
    same_kind = new_cert("Impostor", key, "Test Intermediate", pki.inter_key, ca=False)
    obj["signatures"][0]["header"]["x5c"] = x5c_of([same_kind, pki.inter, pki.root])
    r = one(obj, pki.trust())
    assert r.verified == INVALID and "does not match" in (r.reason or "")


def test_expired_chain_at_the_vcon_signing_time(pki: PKI) -> None:
    key = new_key("p256")
    leaf = new_cert("Old signer", key, "Test Intermediate", pki.inter_key, ca=False,
                    start=datetime(2021, 1, 1, tzinfo=UTC), end=datetime(2022, 1, 1, tzinfo=UTC))
    signer = Signer(key, [leaf, pki.inter, pki.root])
    r = one(sign(orjson.dumps(VCON), signer, "ES256"), pki.trust())  # created_at 2026
    assert r.verified == INVALID
    assert r.reason == ("x5c[0] (CN=Old signer) expired on 2022-01-01T00:00:00Z, before the "
                        "signing time 2026-01-01T00:00:00Z (the vCon's created_at)")
    # signed while the certificate was valid: updated_at wins over created_at
    v = {**VCON, "updated_at": "2021-06-01T00:00:00Z"}
    r = one(sign(orjson.dumps(v), signer, "ES256"), pki.trust())
    assert (r.verified, r.time_source) == (VERIFIED, "updated_at")
    # a signing time in the protected header wins over the vCon's
    for extra, source in (({"iat": 1622505600}, "iat"), ({"sigT": "2021-06-01T00:00:00Z"},
                                                         "sigT")):
        r = one(sign(orjson.dumps(VCON), signer, "ES256", protected=extra), pki.trust())
        assert (r.verified, r.time_source) == (VERIFIED, source), r.reason
    # no time in the vCon at all: now
    v = {k: x for k, x in VCON.items() if k != "created_at"}
    r = one(sign(orjson.dumps(v), signer, "ES256"), pki.trust())
    assert (r.verified, r.time_source) == (INVALID, "now") and "expired" in (r.reason or "")


def test_expired_anchor_outside_the_chain(pki: PKI) -> None:
    root_key = new_key("p256")
    old_root = new_cert("Old Root", root_key, "Old Root", root_key, ca=True,
                        end=datetime(2025, 1, 1, tzinfo=UTC))
    key = new_key("p256")
    leaf = new_cert("Signer", key, "Old Root", root_key, ca=False)
    obj = sign(orjson.dumps(VCON), Signer(key, [leaf]), "ES256")
    r = one(obj, TrustStore.from_certificates([old_root]))
    assert r.verified == INVALID and "the trust anchor (CN=Old Root) expired" in (r.reason or "")
    r = one(obj, TrustStore.from_certificates([old_root]), at=datetime(2024, 1, 1, tzinfo=UTC))
    assert r.verified == VERIFIED


def test_broken_chains(pki: PKI) -> None:
    signer = pki.signer("p256")
    payload = orjson.dumps(VCON)
    # the intermediate left out: the leaf's issuer is not the next certificate
    r = one(sign(payload, signer, "ES256", x5c=x5c_of([signer.chain[0], pki.root])))
    assert r.verified == INVALID and "names issuer CN=Test Intermediate" in (r.reason or "")
    # same name, another key: the link's signature fails
    k = new_key("p384")
    fake_inter = new_cert("Test Intermediate", k, "Test Root", pki.root_key, ca=True)
    r = one(sign(payload, signer, "ES256", x5c=x5c_of([signer.chain[0], fake_inter])))
    assert r.verified == INVALID and "is not signed by the key of x5c[1]" in (r.reason or "")
    # an issuer that is not a CA
    k2 = new_key("p256")
    not_ca = new_cert("Not a CA", k2, "Test Root", pki.root_key, ca=False)
    k3 = new_key("p256")
    leaf = new_cert("Below", k3, "Not a CA", k2, ca=False)
    r = one(sign(payload, Signer(k3, [leaf, not_ca, pki.root]), "ES256"))
    assert r.verified == INVALID and "is not a CA" in (r.reason or "")
    # a path length exceeded
    k4 = new_key("p256")
    short = new_cert("Short", k4, "Test Root", pki.root_key, ca=True, path_length=0)
    k5 = new_key("p256")
    sub = new_cert("Sub", k5, "Short", k4, ca=True)
    k6 = new_key("p256")
    leaf = new_cert("Deep", k6, "Sub", k5, ca=False)
    r = one(sign(payload, Signer(k6, [leaf, sub, short, pki.root]), "ES256"))
    assert r.verified == INVALID and "allows 0 intermediate" in (r.reason or "")


def test_two_layers_resigned(pki: PKI) -> None:
    inner = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    outer = sign(orjson.dumps(inner), pki.signer("rsa2048"), "PS256")
    loaded = load_bytes(orjson.dumps(outer), trust=pki.trust())
    assert loaded.vcon == VCON and loaded.source.signed_layers == 2
    rs = loaded.source.signatures
    assert [(r.layer, r.alg, r.verified) for r in rs] == [(1, "PS256", VERIFIED),
                                                          (2, "ES256", VERIFIED)]
    assert sigs.all_verified(loaded.source)
    assert describe(loaded.source) == (
        "signed, 2 layers: layer 1 verified (CN=Signer rsa2048, PS256); "
        "layer 2 verified (CN=Signer p256, ES256)")
    # the outer layer re-signed by another key over the same payload: only it fails
    bad = copy.deepcopy(outer)
    bad["signatures"][0]["header"]["x5c"] = x5c_of(pki.signer("ed25519").chain)
    loaded = load_bytes(orjson.dumps(bad), trust=pki.trust())
    assert [r.verified for r in loaded.source.signatures] == [INVALID, VERIFIED]
    assert sigs.overall(loaded.source) == INVALID
    assert [d.code for d in loaded.diagnostics] == ["signature-invalid", "signature-verified"]
    # a changed inner payload breaks both: the outer signature covers the inner JWS bytes
    inner2 = copy.deepcopy(inner)
    inner2["payload"] = b64u(orjson.dumps({**VCON, "parties": [{"name": "x"}]}))
    outer2 = copy.deepcopy(outer)
    outer2["payload"] = b64u(orjson.dumps(inner2))
    assert [r.verified for r in results(outer2, pki.trust())] == [INVALID, INVALID]


def test_several_signatures_on_one_layer(pki: PKI) -> None:
    a = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    b = sign(orjson.dumps(VCON), pki.signer("ed25519"), "EdDSA")
    a["signatures"].append(b["signatures"][0])
    a["signatures"].append({"protected": b64u(b'{"alg":"RS256"}'),
                            "header": {"x5u": "https://example.com/c.pem"},
                            "signature": b64u(b"x")})
    rs = results(a, pki.trust())
    assert [(r.index, r.verified) for r in rs] == [(0, VERIFIED), (1, VERIFIED),
                                                   (2, UNVERIFIABLE)]


def test_x5u_only_is_unverifiable_and_never_fetched(monkeypatch: pytest.MonkeyPatch) -> None:
    tried: list[str] = []

    def refuse(*a: Any, **kw: Any) -> Any:
        tried.append(repr(a))
        raise AssertionError("network used")

    for fn in ("create_connection", "getaddrinfo", "socket"):
        monkeypatch.setattr(socket, fn, refuse)
    obj = {"payload": b64u(orjson.dumps(VCON)), "signatures": [{
        "protected": b64u(b'{"alg":"RS256"}'),
        "header": {"x5u": "https://certs.example.com/chain.pem"}, "signature": b64u(b"sig")}]}
    r = one(obj)
    assert r.verified == UNVERIFIABLE
    assert r.reason == ("no x5c certificate chain; x5u https://certs.example.com/chain.pem is "
                        "never fetched")
    assert tried == []
    loaded = load_bytes(orjson.dumps(obj))
    assert [(d.code, d.severity) for d in loaded.diagnostics] == [
        ("signature-not-verified", "warning")]


@pytest.mark.parametrize(("mutate", "status", "expect"), [
    (lambda o: o["signatures"][0].update(signature="+/+/"), INVALID, "not base64url"),
    (lambda o: o["signatures"][0].update(signature="ab!cd"), INVALID, "not base64url"),
    (lambda o: o["signatures"][0].update(signature=o["signatures"][0]["signature"] + "*"),
     INVALID, "not base64url"),
    (lambda o: o["signatures"][0]["header"].update(x5c=["a-b_"]), INVALID,
     "x5c[0] is not standard base64"),
    (lambda o: o["signatures"][0]["header"].update(x5c=["AAAA"]), INVALID,
     "x5c[0] is not a DER X.509 certificate"),
    (lambda o: o["signatures"][0]["header"].update(x5c=[]), INVALID, "non-empty array"),
    (lambda o: o["signatures"][0]["header"].update(x5c="abc"), INVALID, "non-empty array"),
    (lambda o: o["signatures"][0]["header"].update(crit=["b64"]), INVALID, "unprotected"),
    (lambda o: o["signatures"][0]["header"].update(alg="ES384"), INVALID, "differs"),
    (lambda o: o["signatures"][0]["header"].pop("x5c"), UNVERIFIABLE, "no key material"),
    (lambda o: o["signatures"][0]["header"].update(x5c=None, kid="k1"), UNVERIFIABLE, "kid"),
    (lambda o: o.update(signatures=[]), INVALID, "signatures is an empty array"),
    (lambda o: o.update(signatures=["x"]), INVALID, "not an array of signature objects"),
    (lambda o: o["signatures"].append("x"), INVALID, "not a JSON object"),
    (lambda o: o.update(signatures={"a": 1}), INVALID, "not an array of signature objects"),
])
def test_malformed_signatures(pki: PKI, mutate: Callable[[dict[str, Any]], Any], status: str,
                              expect: str) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    mutate(obj)
    r = results(obj)[-1]
    assert r.verified == status and expect in (r.reason or ""), r.reason


def test_crit_refused(pki: PKI) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256",
               protected={"crit": ["exp"], "exp": 1})
    r = one(obj, pki.trust())
    assert r.verified == INVALID and 'does not understand: "exp"' in (r.reason or "")


def test_hostile_certificate_names_are_escaped(pki: PKI) -> None:
    key = new_key("p256")
    leaf = new_cert("evil\x1b]52;c;AAAA\x07\u202e", key, "Test Intermediate", pki.inter_key,
                    ca=False)
    loaded = load_bytes(orjson.dumps(sign(orjson.dumps(VCON), Signer(
        key, [leaf, pki.inter, pki.root]), "ES256")), trust=pki.trust())
    model = build_model(loaded)
    for text in (describe(loaded.source), to_markdown(model), to_text(model),
                 *(d.message for d in loaded.diagnostics)):
        assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert "\x1b" in (model.source.signatures[0].subject or "")  # exact in the model/JSON


# --- trust stores ---------------------------------------------------------------------------


def test_trust_store_errors(tmp_path: Path) -> None:
    with pytest.raises(TrustError, match="no such file or folder"):
        TrustStore.load(str(tmp_path / "nope.pem"))
    with pytest.raises(TrustError, match=re.escape("has no .pem, .crt or .cer file")):
        TrustStore.load(str(tmp_path))
    bad = tmp_path / "bad.pem"
    bad.write_text("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    with pytest.raises(TrustError, match=re.escape("not a PEM or DER X.509 certificate")):
        TrustStore.load(str(bad))


def test_trust_file_with_several_certificates(pki: PKI, tmp_path: Path) -> None:
    both = tmp_path / "both.pem"
    both.write_bytes(SIGNED_ROOT.read_bytes() + pki.pem(pki.root))
    store = TrustStore.load(str(both))
    assert len(store.anchors) == 2
    assert one(SIGNED.read_bytes(), store).verified == VERIFIED
    assert one(sign(orjson.dumps(VCON), pki.signer("ed25519"), "EdDSA"),
               store).verified == VERIFIED
    der = tmp_path / "root.der"
    der.write_bytes(pki.root.public_bytes(serialization.Encoding.DER))
    assert len(TrustStore.load(str(der)).anchors) == 1


# --- vocabulary, laziness, reports ----------------------------------------------------------


def test_one_vocabulary() -> None:
    assert sigs.STATUSES == (VERIFIED, UNTRUSTED, INVALID, UNVERIFIABLE)
    codes = {code for code, _s, _m in SIGNATURE_STATUSES.values()}
    assert codes == {"signature-verified", "signature-untrusted", "signature-invalid",
                     "signature-not-verified"}
    assert codes <= set(DIAGNOSTIC_CODES)
    assert SIGNATURE_STATUSES[INVALID][1] == "error"


def test_unsigned_files_never_import_cryptography() -> None:
    code = ("import sys\nfrom viewer.cli import main\n"
            "main(['check', 'tests/fixtures/report_small.vcon.json', '-f', 'json'])\n"
            "main(['summary', 'tests/fixtures/report_small.vcon.json', '-f', 'md'])\n"
            "assert 'cryptography' not in sys.modules, 'cryptography imported'\n"
            "main(['check', 'demo_vcons/10-signed.vcon.json'])\n"
            "assert 'cryptography' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()


def test_unsigned_describe_and_require_signature(capsys: pytest.CaptureFixture[str]) -> None:
    small = str(FIX / "report_small.vcon.json")
    assert describe(load_path(small).source) == "unsigned"
    assert main(["check", small]) == 0
    capsys.readouterr()
    assert main(["check", small, "--require-signature"]) == 1
    out = capsys.readouterr().out
    assert "signature-required  -  --require-signature: the vCon is unsigned" in out
    assert main(["check", small, "--require-signature", "-f", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["require_signature"] == {"met": False,
                                        "reason": "the vCon is unsigned: no signature to verify"}
    assert doc["exit"] == 1


def test_check_exit_codes_for_invalid_and_bad_trust(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "tampered.vcon"
    bad.write_bytes(orjson.dumps(_change_payload_byte(core())))
    assert main(["check", str(bad)]) == 1  # an invalid signature is an error diagnostic
    out = capsys.readouterr().out
    assert "error    signature-invalid  /  signed layer 1, signature 0: invalid" in out
    assert main(["summary", str(bad)]) == 0  # summary reports, it does not gate
    capsys.readouterr()
    assert main(["check", str(SIGNED), "--trust", str(tmp_path / "missing.pem")]) == 2
    err = capsys.readouterr().err
    assert err.strip().endswith("missing.pem: no such file or folder") and "\n" not in err.strip()
    assert main(["check", str(SIGNED), "--trust", str(ROOT / "README.md")]) == 2


def test_demo_signed_verifies_with_its_root(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(DEMO), "--require-signature"]) == 1
    capsys.readouterr()
    assert main(["check", str(DEMO), "--require-signature", "--trust", str(DEMO_ROOT)]) == 0
    out = capsys.readouterr().out
    assert "signature-verified" in out and "CN=vcon-view demo root CA" in out


def test_csv_rows_carry_the_files_signature_status() -> None:
    """The CSV's file-level provenance (as produced_under_override): each row names the
    weakest signature status of the file, so a spreadsheet of many files can be sorted on it."""
    import csv
    import io

    from viewer.report.csv import to_csv

    for trust, status in ((TrustStore.load(str(DEMO_ROOT)), "verified"),
                          (None, "valid-signature-untrusted")):
        rows = list(csv.DictReader(io.StringIO(to_csv(build_model(
            load_path(str(DEMO), trust=trust))))))
        assert rows and {r["signature"] for r in rows} == {status}


def test_reports_carry_the_status() -> None:
    model = build_model(load_path(str(SIGNED), trust=TrustStore.load(str(SIGNED_ROOT))))
    md = to_markdown(model)
    assert "| Form | signed, 1 layer: verified (CN=grp.div.fakevcon.io, RS256) |" in md
    assert "| Signature | layer 1, signature 0: verified; RS256 by CN=grp.div.fakevcon.io; " \
           "chain CN=grp.div.fakevcon.io → CN=div.fakevcon.io → CN=fakevcon.io; anchor " \
           "CN=fakevcon.io; dates checked at " in md
    text = to_text(model)
    assert "Form:       signed, 1 layer: verified (CN=grp.div.fakevcon.io, RS256)" in text
    assert "Signature:  layer 1, signature 0: verified" in text
    doc = summary_dict(model)
    assert doc["source"]["signatures"][0]["verified"] == "verified"


def test_many_signatures_are_listed_in_part(pki: PKI) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    obj["signatures"] = obj["signatures"] * 12
    model = build_model(load_bytes(orjson.dumps(obj)))
    md = to_markdown(model)
    assert md.count("| Signature |") == sigs.SIGNATURES_SHOWN + 1
    assert "… and 4 more" in md
    assert len(summary_dict(model)["source"]["signatures"]) == 12
    assert sigs.short_status(model.source).startswith("valid-signature-untrusted (the weakest "
                                                      "of 12 signatures in 1 layer)")


def test_loading_stays_exact(pki: PKI) -> None:
    """Verification changes no byte of what is loaded: the same vCon, uuid and form."""
    obj = sign(orjson.dumps(VCON), pki.signer("p521"), "ES512")
    for trust in (None, pki.trust()):
        loaded = load_bytes(orjson.dumps(obj), trust=trust)
        assert loaded.vcon == VCON and loaded.source.form == "signed"
        assert loaded.source.uuid == VCON["uuid"]


def test_bad_protected_header_still_refuses_the_file() -> None:
    obj = core()
    obj["signatures"][0]["protected"] = "%%%"
    with pytest.raises(LoadError, match="protected header is not base64url"):
        load_bytes(orjson.dumps(obj))


def test_at_naive_is_utc(pki: PKI) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    r = one(obj, at=datetime(2030, 1, 1) - timedelta(days=1))
    assert r.checked_at == datetime(2029, 12, 31, tzinfo=UTC)


# --- the viewer's header (Pilot) ------------------------------------------------------------


async def _header(path: Path, trust: TrustStore | None = None) -> str:
    from viewer.tui.app import make_app
    from viewer.tui.timeline import InfoHeader, TimelineScreen

    app = make_app(str(path), trust=trust)
    async with app.run_test(size=(160, 32)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, TimelineScreen)
        return str(app.screen.query_one(InfoHeader).render())


async def test_viewer_header_shows_the_status(tmp_path: Path) -> None:
    header = await _header(DEMO)
    assert "10-signed.vcon.json · signed: valid-signature-untrusted (CN=vcon-view demo signer, " \
           "RS256) · uuid" in header
    header = await _header(DEMO, TrustStore.load(str(DEMO_ROOT)))
    assert "· signed: verified (CN=vcon-view demo signer, RS256) ·" in header
    bad = tmp_path / "tampered.vcon.json"
    obj = json.loads(DEMO.read_bytes())
    obj["signatures"][0]["signature"] = obj["signatures"][0]["signature"][::-1]
    bad.write_bytes(orjson.dumps(obj))
    header = await _header(bad, TrustStore.load(str(DEMO_ROOT)))
    assert "1 ERROR DIAGNOSTIC: this vCon does not conform" in header
    assert "· signed: invalid (CN=vcon-view demo signer, RS256) ·" in header
    assert "· unsigned ·" in await _header(FIX / "tui_small.vcon.json")


# --- hostile certificates (Hypothesis) ------------------------------------------------------


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.integers(0, 2), pos=st.integers(0, 10_000), byte=st.integers(0, 255),
       cut=st.booleans())
def test_mangled_certificates_never_crash(pki: PKI, which: int, pos: int, byte: int,
                                          cut: bool) -> None:
    """A byte changed in (or the tail cut off) any certificate of the chain: a status with a
    reason, never an exception, never 'verified' unless the bytes are unchanged."""
    signer = pki.signer("p256")
    ders = [c.public_bytes(serialization.Encoding.DER) for c in signer.chain]
    der = bytearray(ders[which])
    pos %= len(der)
    if cut:
        del der[pos:]
    else:
        der[pos] = byte
    ders[which] = bytes(der)
    obj = sign(orjson.dumps(VCON), signer, "ES256",
               x5c=[base64.b64encode(d).decode() for d in ders])
    r = one(obj, pki.trust())
    assert r.verified in sigs.STATUSES
    if bytes(der) != signer.chain[which].public_bytes(serialization.Encoding.DER):
        assert r.verified != VERIFIED or which == 2, r  # the root's copy may be ignored
    else:
        assert r.verified == VERIFIED
    assert r.verified == VERIFIED or r.reason


def test_viewer_and_demo_take_trust(monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    import viewer.cli as cli
    import viewer.tui.app as app

    seen: list[Any] = []

    def fake_run(path: str, **kw: Any) -> int:
        seen.append((Path(path).name, kw.get("trust")))
        return 0

    monkeypatch.setattr(app, "run", fake_run)
    monkeypatch.setattr(cli, "need_terminal", lambda: None)
    assert main([str(DEMO), "--trust", str(DEMO_ROOT)]) == 0
    assert main(["demo", "10-signed", "--trust", str(DEMO_ROOT)]) == 0
    assert [(n, len(t.anchors)) for n, t in seen] == [("10-signed.vcon.json", 1)] * 2
    # a bad --trust is one line and exit 2, before any screen
    assert main([str(DEMO), "--trust", str(ROOT / "nope.pem")]) == 2
    assert "nope.pem: no such file or folder" in capsys.readouterr().err
    assert len(seen) == 2


def test_sha1_signed_certificate_refused(pki: PKI) -> None:
    """cryptography will not sign a certificate with SHA-1 any more, so one is made by hand:
    a SHA-256 certificate by the (RSA) root with both algorithm OIDs turned into
    sha1WithRSAEncryption (same length), and the TBS re-signed with SHA-1."""
    key = new_key("p256")
    good = new_cert("SHA-1 signer", key, "Test Root", pki.root_key, ca=False)
    sha256_rsa = bytes.fromhex("06092a864886f70d01010b")
    sha1_rsa = bytes.fromhex("06092a864886f70d010105")
    der = good.public_bytes(serialization.Encoding.DER)
    assert der.count(sha256_rsa) == 2 and der[-257] == 0  # BIT STRING: 0 unused bits, 256 bytes
    tbs = good.tbs_certificate_bytes.replace(sha256_rsa, sha1_rsa)
    sig = pki.root_key.sign(tbs, padding.PKCS1v15(), hashes.SHA1())
    leaf = x509.load_der_x509_certificate(der.replace(sha256_rsa, sha1_rsa)[:-256] + sig)
    assert leaf.signature_hash_algorithm.name == "sha1"
    # (cryptography 50 cannot even check it; older releases could: refused either way)
    r = one(sign(orjson.dumps(VCON), Signer(key, [leaf, pki.root]), "ES256"), pki.trust())
    assert r.verified == INVALID and "is signed with SHA-1" in (r.reason or "")
    # and not anchored through a trust anchor either
    r = one(sign(orjson.dumps(VCON), Signer(key, [leaf]), "ES256"), pki.trust())
    assert r.verified == UNTRUSTED


def test_bounds_on_signatures_and_chains(pki: PKI) -> None:
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256")
    obj["signatures"] = obj["signatures"] * (sigs.MAX_PER_LAYER + 2)
    rs = results(obj, pki.trust())
    assert [r.verified for r in rs] == [VERIFIED] * sigs.MAX_PER_LAYER + [UNVERIFIABLE] * 2
    assert "more than 16 signatures on one layer" in (rs[-1].reason or "")
    obj = sign(orjson.dumps(VCON), pki.signer("p256"), "ES256",
               x5c=x5c_of(pki.signer("p256").chain) * 6)
    r = one(obj, pki.trust())
    assert r.verified == INVALID and "x5c holds 18 certificates" in (r.reason or "")
