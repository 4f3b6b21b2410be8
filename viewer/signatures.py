"""Verify the signatures of a signed vCon (JWS General JSON, every layer of re-signing).

What is checked, per signature of every layer (RFC 7515, RFC 7518, RFC 5280 in part):

* the headers: ``crit`` must name nothing (vcon-view understands no extension header), and a
  name in both the protected and the unprotected header must carry the same value there (the
  core draft's own example repeats ``alg`` and ``x5c``; RFC 7515 wants them disjoint);
* ``alg``: RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA; ``none``, the HMAC algorithms
  and anything else are refused (``invalid``);
* the key: the public key of the ``x5c`` leaf (standard base64 DER, RFC 7515 4.1.6), of the type
  and size the algorithm needs (RSA of 2048 bits or more, the EC curve of the ES algorithm,
  Ed25519 or Ed448); without ``x5c`` the signature is ``unverifiable`` (``x5u`` is never
  fetched, a ``jwk`` or ``kid`` alone names no certificate);
* the signature over the signing input ``ASCII(protected "." payload)`` exactly as recorded
  (ES: the JWS raw ``r || s``, converted to DER for ``cryptography``);
* the chain link by link: each certificate's issuer name is the next one's subject and its
  signature verifies with the next one's key; an issuing certificate of version 3 must be a CA
  (basicConstraints) allowed to sign certificates (keyUsage, when present) within its path
  length; version 1 issuers are accepted (RFC 5280 leaves them to the application, and the core
  draft's example chain has two); a leaf keyUsage, when present, must allow signing; a
  certificate signed with MD5 or SHA-1 is refused;
* the dates of every certificate (and of the anchor) at the signing time (``signing_time``);
* the anchor: the chain is anchored when one of its certificates is a trust anchor (the same
  certificate, or the same subject and key) or is issued by one; anchors come only from
  ``--trust`` (``TrustStore``). No operating system store is consulted.

Not checked: revocation (no CRL, no OCSP: nothing is fetched), name constraints, policies,
extended key usage, and whether what the vCon records is true or complete.

The statuses (``spec.SIGNATURE_STATUSES``): ``verified``, ``valid-signature-untrusted``,
``invalid`` (with the reason), ``unverifiable``. ``cryptography`` is imported only when a
signature has an ``x5c`` chain to check, or trust anchors are read: an unsigned file never
imports it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from viewer.model.spec import SIGNATURE_STATUSES, VERIFIED
from viewer.model.times import format_time, parse_time
from viewer.model.types import Signature, Source
from viewer.textsafe import safe, safe_short

#: What verify_source returns: one per signature, outermost layer first.
LayerResult = Signature

STATUSES: Final = tuple(SIGNATURE_STATUSES)
UNTRUSTED: Final = "valid-signature-untrusted"
INVALID: Final = "invalid"
UNVERIFIABLE: Final = "unverifiable"

#: alg -> (key family, hash name, EC curve name or ES signature half-length)
_ALGS: Final[dict[str, tuple[str, str, str | None, int]]] = {
    "RS256": ("rsa-pkcs1", "SHA256", None, 0),
    "RS384": ("rsa-pkcs1", "SHA384", None, 0),
    "RS512": ("rsa-pkcs1", "SHA512", None, 0),
    "PS256": ("rsa-pss", "SHA256", None, 0),
    "PS384": ("rsa-pss", "SHA384", None, 0),
    "PS512": ("rsa-pss", "SHA512", None, 0),
    "ES256": ("ec", "SHA256", "secp256r1", 32),
    "ES384": ("ec", "SHA384", "secp384r1", 48),
    "ES512": ("ec", "SHA512", "secp521r1", 66),
    "EdDSA": ("eddsa", "", None, 0),
}
SUPPORTED_ALGS: Final = tuple(_ALGS)
#: RFC 7518 3.3 and 3.5: "A key of size 2048 bits or larger MUST be used".
MIN_RSA_BITS: Final = 2048
#: Bounds that keep a hostile file's cost linear: signatures verified per layer (each hashes
#: the whole payload), certificates in one x5c chain (each link is a public-key operation).
MAX_PER_LAYER: Final = 16
MAX_CHAIN: Final = 16
#: Reports and the viewer list at most this many signatures one by one (the JSON has all).
SIGNATURES_SHOWN: Final = 8
#: Where the time a signature's certificates are checked at comes from, in this order.
TIME_SOURCES: Final = ("given", "sigT", "iat", "updated_at", "created_at", "now")


class TrustError(Exception):
    """A ``--trust`` path that gives no usable anchor: one line for the user."""


@dataclass(frozen=True)
class TrustStore:
    """Trust anchors: X.509 certificates the user vouches for (``--trust PEM``)."""

    anchors: tuple[Any, ...]  # cryptography.x509.Certificate
    source: str  # the path as given

    @classmethod
    def load(cls, path: str) -> TrustStore:
        """Anchors from a PEM file (one or more certificates; a ``.crt``/``.der`` may be DER),
        or from every ``.pem``/``.crt``/``.cer`` file of a folder (not its subfolders)."""
        p = Path(path)
        label = safe(path)
        if p.is_dir():
            try:
                files = sorted(f for f in p.iterdir()
                               if f.suffix.lower() in (".pem", ".crt", ".cer") and f.is_file())
            except OSError as exc:
                raise TrustError(f"--trust {label}: cannot read the folder "
                                 f"({safe(exc.strerror or exc)})") from None
            if not files:
                raise TrustError(f"--trust {label}: the folder has no .pem, .crt or .cer file")
        elif p.exists():
            files = [p]
        else:
            raise TrustError(f"--trust {label}: no such file or folder")
        anchors: list[Any] = []
        for f in files:
            anchors.extend(_read_certs(f, label if f == p else f"{label}/{safe(f.name)}"))
        return cls(tuple(anchors), path)

    @classmethod
    def from_certificates(cls, certs: Sequence[Any], source: str = "(given)") -> TrustStore:
        return cls(tuple(certs), source)


def _read_certs(f: Path, label: str) -> list[Any]:
    from cryptography import x509

    try:
        data = f.read_bytes()
    except OSError as exc:
        raise TrustError(f"--trust {label}: cannot read ({safe(exc.strerror or exc)})") from None
    try:
        if b"-----BEGIN" in data:
            certs = list(x509.load_pem_x509_certificates(data))
        else:
            certs = [x509.load_der_x509_certificate(data)]
    except ValueError:
        raise TrustError(f"--trust {label}: not a PEM or DER X.509 certificate") from None
    if not certs:
        raise TrustError(f"--trust {label}: no certificate in it")
    return certs


# --- the checks of one signature ------------------------------------------------------------


@dataclass
class Pending:
    """One signature after the checks that need no time (headers, alg, key, signature, links);
    ``finish`` adds the dates and the anchor once the signing time is known."""

    sig: Signature
    status: str | None  # set when decided already (invalid, unverifiable)
    reason: str | None
    certs: tuple[Any, ...] = ()
    header_time: tuple[datetime, str] | None = None  # (time, "sigT" | "iat")


def check_signature(sig: Signature, obj: dict[str, Any], protected: dict[str, Any] | None,
                    payload: str) -> Pending:
    """Everything about one signature object that does not depend on time or trust.

    ``obj``: the signature object as recorded (``protected``, ``header``, ``signature``);
    ``protected``: its protected header decoded (the loader has refused one that is not JSON);
    ``payload``: the layer's ``payload`` string as recorded. Certificates are hostile input
    too: whatever a parser raises on one makes the signature ``invalid``, never the load fail."""
    if sig.index >= MAX_PER_LAYER:
        return Pending(sig, UNVERIFIABLE,
                       f"more than {MAX_PER_LAYER} signatures on one layer: vcon-view verifies "
                       f"the first {MAX_PER_LAYER} (each one hashes the whole payload again)")
    try:
        return _check(sig, obj, protected, payload)
    except Exception as exc:  # a certificate cryptography cannot process (any exception type)
        return _refuse(sig, f"a certificate or key cannot be processed "
                            f"({type(exc).__name__}: {safe_short(str(exc), 120)})")


def _check(sig: Signature, obj: dict[str, Any], protected: dict[str, Any] | None,
           payload: str) -> Pending:
    header = obj.get("header")
    unprotected = header if isinstance(header, dict) else {}
    prot = protected or {}
    header_time = _header_time(prot)
    for name in prot.keys() & unprotected.keys():
        if prot[name] != unprotected[name]:
            return _refuse(sig, f"header parameter {_q(name)} differs between the protected "
                                f"and the unprotected header")
    if "crit" in unprotected:
        return _refuse(sig, "crit is in the unprotected header (RFC 7515 wants it protected)")
    crit = prot.get("crit")
    if crit is not None:
        names = ", ".join(_q(c) for c in crit[:5]) + (", …" if len(crit) > 5 else "") \
            if isinstance(crit, list) else _q(crit)
        return _refuse(sig, f"crit names header parameter(s) vcon-view does not understand: "
                            f"{names or '(an empty list)'}")
    merged = {**unprotected, **prot}
    alg = merged.get("alg")
    if alg is None:
        return _refuse(sig, "no alg header parameter")
    if alg == "none":
        return _refuse(sig, "alg none: an unsecured JWS proves nothing and is refused")
    if not isinstance(alg, str) or alg not in _ALGS:
        extra = " (an HMAC needs a shared secret: no third party can verify it)" \
            if isinstance(alg, str) and alg.startswith("HS") else ""
        return _refuse(sig, f"alg {_q(alg)} is not supported{extra}; vcon-view verifies "
                            f"{', '.join(SUPPORTED_ALGS)}")
    x5c = merged.get("x5c")
    if x5c is None:
        return Pending(sig, UNVERIFIABLE, _no_key(merged), header_time=header_time)
    if not isinstance(x5c, list) or not x5c:
        return _refuse(sig, "x5c is not a non-empty array of certificates")
    if len(x5c) > MAX_CHAIN:
        return _refuse(sig, f"x5c holds {len(x5c)} certificates; vcon-view checks chains of at "
                            f"most {MAX_CHAIN}")
    certs = []
    for i, c in enumerate(x5c):
        cert, why = _cert(c)
        if cert is None:
            return _refuse(sig, f"x5c[{i}] {why}")
        certs.append(cert)
    sig = replace(sig, subject=_subject(certs[0]), chain=tuple(_subject(c) for c in certs))
    raw = _b64url(obj.get("signature"))
    if raw is None:
        return _refuse(sig, "the signature value is not base64url")
    if not isinstance(payload, str):
        return _refuse(sig, "the payload is not a string")
    prot_b64 = obj.get("protected")
    if prot_b64 is not None and not isinstance(prot_b64, str):
        return _refuse(sig, "the protected header is not a string")
    why = _verify(alg, certs[0], raw, f"{prot_b64 or ''}.{payload}")
    if why:
        return _refuse(sig, why)
    why = _links(certs)
    if why:
        return _refuse(sig, why)
    return Pending(sig, None, None, tuple(certs), header_time)


def _refuse(sig: Signature, reason: str) -> Pending:
    return Pending(sig, INVALID, reason)


def _no_key(h: dict[str, Any]) -> str:
    x5u = h.get("x5u")
    if isinstance(x5u, str):
        return f"no x5c certificate chain; x5u {safe_short(x5u, 120)} is never fetched"
    if h.get("jwk") is not None:
        return "no x5c certificate chain; a bare jwk key is not tied to any certificate"
    if h.get("kid") is not None:
        return "no x5c certificate chain; only a kid, which names a key vcon-view does not have"
    return "no key material (no x5c, no x5u)"


def _q(value: object) -> str:
    return f'"{safe_short(value, 60)}"' if isinstance(value, str) else safe_short(repr(value), 60)


def _header_time(prot: dict[str, Any]) -> tuple[datetime, str] | None:
    """The signing time a protected header claims: JAdES ``sigT`` (RFC 3339) or ``iat``
    (a NumericDate, as in JWT); integrity-protected, so the best source there is."""
    t, _naive = parse_time(prot.get("sigT"))
    if t is not None:
        return t, "sigT"
    iat = prot.get("iat")
    if isinstance(iat, (int, float)) and not isinstance(iat, bool):
        try:
            return datetime.fromtimestamp(iat, UTC), "iat"
        except (OverflowError, OSError, ValueError):
            return None
    return None


def _cert(value: object) -> tuple[Any, str]:
    """(certificate, "") or (None, why): x5c holds standard base64 (not base64url) DER."""
    from cryptography import x509

    if not isinstance(value, str):
        return None, "is not a string"
    try:
        der = base64.b64decode(value.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return None, "is not standard base64 (x5c is base64 DER, not base64url)"
    try:
        return x509.load_der_x509_certificate(der), ""
    except ValueError:
        return None, "is not a DER X.509 certificate"


_URL_TO_STD: Final = str.maketrans("-_", "+/")


def _b64url(value: object) -> bytes | None:
    """base64url (padding optional), strictly: any other character is a refusal, not skipped
    (Python's urlsafe_b64decode would drop it in silence)."""
    if not isinstance(value, str) or "+" in value or "/" in value or "=" in value.rstrip("="):
        return None
    s = value.rstrip("=")
    if len(s) % 4 == 1:
        return None
    try:
        return base64.b64decode(s.translate(_URL_TO_STD) + "=" * (-len(s) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _subject(cert: Any) -> str:
    try:
        return cert.subject.rfc4514_string()
    except ValueError:  # a name cryptography cannot render
        return "(unreadable name)"


def short_name(subject: str | None) -> str:
    """``CN=...`` of an RFC 4514 subject (else its ``O=...``, else all of it), for one line."""
    if not subject:
        return "?"
    for key in ("CN=", "O="):
        for part in _rdns(subject):
            if part.startswith(key):
                return part
    return subject


def _rdns(subject: str) -> list[str]:
    """Split an RFC 4514 string at unescaped commas and plus signs."""
    out, cur, esc = [], "", False
    for ch in subject:
        if esc:
            cur += ch
            esc = False
        elif ch == "\\":
            cur += ch
            esc = True
        elif ch in ",+":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def _verify(alg: str, leaf: Any, raw: bytes, signing_input: str) -> str | None:
    """None when ``raw`` is a good ``alg`` signature of ``signing_input`` by the leaf's key."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    family, hash_name, curve, half = _ALGS[alg]
    try:
        key = leaf.public_key()
    except (ValueError, TypeError):  # an unsupported or malformed key in the certificate
        return "the x5c leaf's public key cannot be read"
    try:
        data = signing_input.encode("ascii")
    except UnicodeEncodeError:
        return "the signing input is not ASCII (protected header or payload)"
    h = getattr(hashes, hash_name)() if hash_name else None
    have = _key_kind(key)
    try:
        if family.startswith("rsa"):
            if not isinstance(key, rsa.RSAPublicKey):
                return f"alg {alg} needs an RSA key; the x5c leaf has {have}"
            if key.key_size < MIN_RSA_BITS:
                return (f"alg {alg}: the x5c leaf's RSA key has {key.key_size} bits, fewer than "
                        f"the {MIN_RSA_BITS} RFC 7518 requires")
            pad = padding.PKCS1v15() if family == "rsa-pkcs1" else padding.PSS(
                mgf=padding.MGF1(h), salt_length=h.digest_size)
            key.verify(raw, data, pad, h)
        elif family == "ec":
            if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != curve:
                return f"alg {alg} needs an EC {curve} key; the x5c leaf has {have}"
            if len(raw) != 2 * half:
                return (f"alg {alg}: the signature has {len(raw)} bytes, not the {2 * half} of "
                        "r || s")
            r = int.from_bytes(raw[:half], "big")
            s = int.from_bytes(raw[half:], "big")
            key.verify(encode_dss_signature(r, s), data, ec.ECDSA(h))
        else:
            if not isinstance(key, (ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)):
                return f"alg {alg} needs an Ed25519 or Ed448 key; the x5c leaf has {have}"
            key.verify(raw, data)
    except InvalidSignature:
        return (f"the {alg} signature does not match the signed bytes and the key of the x5c "
                f"leaf ({safe(short_name(_subject(leaf)))}): the payload or the protected "
                "header was changed after signing, or another key signed it")
    return None


def _key_kind(key: Any) -> str:
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    if isinstance(key, rsa.RSAPublicKey):
        return f"an RSA {key.key_size}-bit key"
    if isinstance(key, ec.EllipticCurvePublicKey):
        return f"an EC {key.curve.name} key"
    if isinstance(key, ed25519.Ed25519PublicKey):
        return "an Ed25519 key"
    if isinstance(key, ed448.Ed448PublicKey):
        return "an Ed448 key"
    return f"a {type(key).__name__.removeprefix('_')} key"


def _ext(cert: Any, cls: Any) -> Any:
    from cryptography import x509

    try:
        return cert.extensions.get_extension_for_class(cls).value
    except x509.ExtensionNotFound:
        return None
    except ValueError:  # a malformed extension
        return False


def _links(certs: Sequence[Any]) -> str | None:
    """None when each certificate is issued by the next (names, signature, CA rules)."""
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm

    ku = _ext(certs[0], x509.KeyUsage)
    if ku is False:
        return "x5c[0] has a malformed extension"
    if ku is not None and not (ku.digital_signature or ku.content_commitment):
        return f"x5c[0] ({_short(certs[0])}): its keyUsage does not allow signing"
    for i in range(len(certs) - 1):
        child, parent = certs[i], certs[i + 1]
        if child.issuer != parent.subject:
            return (f"x5c[{i}] ({_short(child)}) names issuer {_name(child.issuer)}, but "
                    f"x5c[{i + 1}] is {_short(parent)}: the chain is broken")
        why = _issuer_rules(parent, f"x5c[{i + 1}]", intermediates_below=i)
        if why:
            return why
        weak = _weak_hash(child)
        if weak:
            return (f"x5c[{i}] ({_short(child)}) is signed with {weak}, which is broken for "
                    "signatures: refused")
        try:
            child.verify_directly_issued_by(parent)
        except InvalidSignature:
            return (f"x5c[{i}] ({_short(child)}) is not signed by the key of x5c[{i + 1}] "
                    f"({_short(parent)}): the chain is broken")
        except (ValueError, TypeError, UnsupportedAlgorithm) as exc:
            return (f"x5c[{i}] ({_short(child)}): its signature by x5c[{i + 1}] cannot be "
                    f"checked ({safe_short(str(exc), 120)})")
    return None


def _weak_hash(cert: Any) -> str | None:
    """"MD5" or "SHA-1" when the certificate's own signature uses one (collisions are
    practical: a certificate signed so can be forged), else None."""
    try:
        h = cert.signature_hash_algorithm
    except Exception:  # an algorithm cryptography does not know: the link check says so
        return None
    name = getattr(h, "name", "")
    return {"md5": "MD5", "sha1": "SHA-1"}.get(name)


def _issuer_rules(cert: Any, where: str, intermediates_below: int) -> str | None:
    """RFC 5280 6.1.4 (k), (l), (n) for a certificate that issues another one."""
    from cryptography import x509

    if cert.version != x509.Version.v3:
        return None  # v1/v2: no extensions to check; accepted (see the module docstring)
    bc = _ext(cert, x509.BasicConstraints)
    if bc is False:
        return f"{where} ({_short(cert)}) has a malformed extension"
    if bc is None or not bc.ca:
        return f"{where} ({_short(cert)}) issues a certificate but is not a CA (basicConstraints)"
    if bc.path_length is not None and intermediates_below > bc.path_length:
        return (f"{where} ({_short(cert)}) allows {bc.path_length} intermediate certificate(s) "
                f"below it, the chain has {intermediates_below}")
    ku = _ext(cert, x509.KeyUsage)
    if ku is False:
        return f"{where} ({_short(cert)}) has a malformed extension"
    if ku is not None and not ku.key_cert_sign:
        return f"{where} ({_short(cert)}) issues a certificate, but its keyUsage forbids it"
    return None


def _short(cert: Any) -> str:
    return safe(short_name(_subject(cert)))


def _name(name: Any) -> str:
    try:
        return safe(short_name(name.rfc4514_string()))
    except ValueError:
        return "(unreadable name)"


def _dates(cert: Any, where: str, at: datetime, source: str) -> str | None:
    before, after = cert.not_valid_before_utc, cert.not_valid_after_utc
    when = f"the signing time {rfc3339(at)} ({describe_time_source(source)})"
    if at > after:
        return f"{where} ({_short(cert)}) expired on {rfc3339(after)}, before {when}"
    if at < before:
        return f"{where} ({_short(cert)}) is not valid before {rfc3339(before)}, after {when}"
    return None


def rfc3339(t: datetime) -> str:
    """RFC 3339 in UTC, to the second (enough for a certificate's dates)."""
    return format_time(t.astimezone(UTC).replace(microsecond=0)) or ""


def describe_time_source(source: str) -> str:
    return {
        "given": "the time asked for",
        "sigT": "the protected header's sigT",
        "iat": "the protected header's iat",
        "updated_at": "the vCon's updated_at",
        "created_at": "the vCon's created_at",
        "now": "now: the vCon gives no signing time",
    }.get(source, source)


def finish(p: Pending, trust: TrustStore | None, at: datetime, source: str) -> Signature:
    """The signature's final status: ``p`` with the dates at ``at`` and the anchor."""
    try:
        return _finish(p, trust, at, source)
    except Exception as exc:  # as in check_signature: hostile certificates never crash a load
        return replace(p.sig, verified=INVALID,
                       reason=f"a certificate cannot be processed ({type(exc).__name__}: "
                              f"{safe_short(str(exc), 120)})")


def _finish(p: Pending, trust: TrustStore | None, at: datetime, source: str) -> Signature:
    sig = p.sig
    if p.header_time is not None and source != "given":
        at, source = p.header_time
    if p.status is not None:
        return replace(sig, verified=p.status, reason=p.reason, checked_at=None,
                       time_source=None)
    sig = replace(sig, checked_at=at, time_source=source)
    for i, c in enumerate(p.certs):
        why = _dates(c, f"x5c[{i}]", at, source)
        if why:
            return replace(sig, verified=INVALID, reason=why)
    if trust is None or not trust.anchors:
        return replace(sig, verified=UNTRUSTED,
                       reason="no trust anchor given (--trust); the chain is consistent, "
                              "but nothing says whose it is")
    anchor, why = _anchor(p.certs, trust, at, source)
    if why:
        return replace(sig, verified=INVALID, reason=why)
    if anchor is None:
        return replace(sig, verified=UNTRUSTED,
                       reason=f"the x5c chain reaches none of the {len(trust.anchors)} trust "
                              f"anchor(s) of --trust {safe(trust.source)}")
    return replace(sig, verified=VERIFIED, reason=None, anchor=_subject(anchor))


def _anchor(certs: Sequence[Any], trust: TrustStore, at: datetime,
            source: str) -> tuple[Any, str | None]:
    """(the anchor the chain reaches, None) or (None, None) or (None, why it fails)."""
    from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    def spki(c: Any) -> bytes:
        return c.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)

    for i, cert in enumerate(certs):
        for a in trust.anchors:
            if a == cert or (a.subject == cert.subject and _same_key(a, cert, spki)):
                return a, None  # the chain itself holds the anchor; its dates are checked
        for a in trust.anchors:
            if a.subject != cert.issuer or _weak_hash(cert):
                continue
            try:
                cert.verify_directly_issued_by(a)
            except (InvalidSignature, ValueError, TypeError, UnsupportedAlgorithm):
                continue
            why = _issuer_rules(a, "the trust anchor", intermediates_below=i)
            why = why or _dates(a, "the trust anchor", at, source)
            return (None, why) if why else (a, None)
    return None, None


def _same_key(a: Any, b: Any, spki: Callable[[Any], bytes]) -> bool:
    try:
        return spki(a) == spki(b)
    except (ValueError, TypeError):
        return False


# --- a whole file ---------------------------------------------------------------------------


def signing_time(vcon: dict[str, Any]) -> tuple[datetime | None, str]:
    """The time a signed vCon says it was signed: its ``updated_at`` (the core draft: "for
    signed forms ... the time when this vcon was last signed"), else its ``created_at``;
    (None, "now") when it gives neither in RFC 3339."""
    for key in ("updated_at", "created_at"):
        t, _naive = parse_time(vcon.get(key))
        if t is not None:
            return t, key
    return None, "now"


def finish_all(pending: Sequence[Pending], vcon: dict[str, Any], trust: TrustStore | None,
               at: datetime | None) -> list[Signature]:
    """Every pending signature finished at ``at`` (given), else at the vCon's signing time,
    else now."""
    if at is not None:
        when, source = at, "given"
    else:
        t, source = signing_time(vcon)
        when = t if t is not None else datetime.now(UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return [finish(p, trust, when, source) for p in pending]


def verify_source(data: bytes | dict[str, Any], trust: TrustStore | None = None,
                  at: datetime | None = None) -> tuple[LayerResult, ...]:
    """The verification of every signature of a vCon's bytes (or parsed JSON), outermost layer
    first; () for an unsigned vCon. Raises ``viewer.load.LoadError`` as loading does."""
    from viewer.load import load_bytes

    if isinstance(data, dict):
        from viewer.jsonenc import dumps

        data = dumps(data)
    return load_bytes(data, trust=trust, at=at).source.signatures


# --- words ----------------------------------------------------------------------------------


def signature_line(sig: Signature) -> str:
    """One signature in words (safe): ``layer 1: verified (CN=..., RS256, anchor CN=...)``."""
    bits = [safe(sig.alg) if sig.alg else "no alg"]
    if sig.subject:
        bits.insert(0, safe(short_name(sig.subject)))
    if sig.anchor:
        bits.append(f"anchor {safe(short_name(sig.anchor))}")
    out = f"{sig.verified} ({', '.join(bits)})"
    if sig.reason and sig.verified != VERIFIED:
        out += f": {safe_short(sig.reason, 300)}"
    return out


def signature_details(sig: Signature) -> str:
    """Everything about one signature in one safe line, for reports and the viewer:
    ``layer 1, signature 0: verified; RS256 by CN=...; chain CN=... → CN=...; anchor CN=...;
    dates checked at ... (the vCon's created_at)``, and the reason when not verified."""
    parts = [f"layer {sig.layer}, signature {sig.index}: {sig.verified}"]
    by = f"{safe(sig.alg) if sig.alg else 'no alg'}"
    if sig.subject:
        by += f" by {safe(short_name(sig.subject))}"
    parts.append(by)
    if len(sig.chain) > 1:
        parts.append("chain " + " → ".join(safe(short_name(c)) for c in sig.chain))
    if sig.anchor:
        parts.append(f"anchor {safe(short_name(sig.anchor))}")
    if sig.checked_at is not None:
        parts.append(f"dates checked at {rfc3339(sig.checked_at)} "
                     f"({describe_time_source(sig.time_source or '')})")
    if sig.reason and sig.verified != VERIFIED:
        parts.append(safe_short(sig.reason, 400))
    return "; ".join(parts)


def describe(source: Source) -> str:
    """The form and the signature status in one safe line, for headers and provenance:
    ``signed, 1 layer: valid-signature-untrusted (CN=..., RS256)``; ``unsigned``."""
    form = source.form + (", gzip" if source.gzip else "")
    if not source.signed_layers:
        return form
    n = source.signed_layers
    head = f"{form}, {n} layer{'s' if n != 1 else ''}"
    sigs = source.signatures
    if not sigs:
        return f"{head}: no signature"
    if len(sigs) == 1:
        return f"{head}: {_status_only(sigs[0])}"
    return f"{head}: " + "; ".join(f"layer {s.layer}" + (f" #{s.index}" if s.index else "")
                                   + f" {_status_only(s)}" for s in sigs)


def short_status(source: Source) -> str:
    """The signature status for a one-line header: ``describe``'s words for one signature,
    the weakest status of several (``overall``); "" for an unsigned vCon."""
    if not source.signed_layers:
        return ""
    sigs = source.signatures
    if len(sigs) == 1:
        return _status_only(sigs[0])
    n = source.signed_layers
    return (f"{overall(source)} (the weakest of {len(sigs)} signatures in {n} "
            f"layer{'s' if n != 1 else ''})")


def _status_only(sig: Signature) -> str:
    bits = [safe(short_name(sig.subject))] if sig.subject else []
    bits.append(safe(sig.alg) if sig.alg else "no alg")
    return f"{sig.verified} ({', '.join(bits)})"


def overall(source: Source) -> str | None:
    """The weakest status over every signature (None: unsigned): invalid < unverifiable <
    valid-signature-untrusted < verified."""
    if not source.signed_layers:
        return None
    if not source.signatures:
        return INVALID
    rank = {INVALID: 0, UNVERIFIABLE: 1, UNTRUSTED: 2, VERIFIED: 3}
    return min((s.verified for s in source.signatures), key=lambda v: rank.get(v, -1))


def all_verified(source: Source) -> bool:
    """``--require-signature``: signed, and every signature of every layer verified."""
    return overall(source) == VERIFIED
