"""What signature verification costs: the import of ``cryptography``, and loading a signed vCon
against loading the same vCon unsigned, as ratios to a bare ``orjson.loads`` of the file.

Run from the repository root::

    .venv/bin/python bench/signatures.py                 # 10k operations (~10 MB)
    .venv/bin/python bench/signatures.py --operations 88000

The signed copy is an RS256 JWS General JSON wrapper (x5c: a leaf and a root made here, the
core draft's shape); loading it decodes the payload, verifies the signature over the whole
signing input and checks the chain. Times are the best of ``--repeat`` runs in this process,
the garbage collector off; the import is timed in fresh interpreters.
"""

from __future__ import annotations

import argparse
import base64
import gc
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
if __package__ in (None, ""):  # run as a script: the checkout's viewer
    sys.path.insert(0, str(ROOT))

OUT = ROOT / "bench" / "out"
CRYPTO_IMPORTS = ("from cryptography import x509; from cryptography.hazmat.primitives import "
                  "hashes; from cryptography.hazmat.primitives.asymmetric import ec, ed25519, "
                  "ed448, padding, rsa")


def best(fn: Callable[[], Any], repeat: int) -> float:
    """Best wall time of ``repeat`` runs, the collector off (as the headless commands run)."""
    times = []
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
        del result
        gc.enable()
    return min(times)


def import_cost(repeat: int) -> tuple[float, float]:
    """(seconds for a bare interpreter, seconds with the cryptography imports): best of."""
    def run(code: str) -> float:
        return best(lambda: subprocess.run([sys.executable, "-c", code], check=True), repeat)

    return run("pass"), run(CRYPTO_IMPORTS)


def signed_copy(unsigned: bytes) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding, rsa
    from cryptography.hazmat.primitives.serialization import Encoding
    from cryptography.x509.oid import NameOID

    def cert(cn: str, key: Any, issuer: str, signer: Any, ca: bool) -> x509.Certificate:
        nm = lambda c: x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, c)])  # noqa: E731
        return (x509.CertificateBuilder().subject_name(nm(cn)).issuer_name(nm(issuer))
                .public_key(key.public_key()).serial_number(1)
                .not_valid_before(datetime(2020, 1, 1, tzinfo=UTC))
                .not_valid_after(datetime(2040, 1, 1, tzinfo=UTC))
                .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
                .sign(signer, hashes.SHA256()))

    root_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    chain = [cert("bench signer", key, "bench root", root_key, False),
             cert("bench root", root_key, "bench root", root_key, True)]
    x5c = [base64.b64encode(c.public_bytes(Encoding.DER)).decode() for c in chain]
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    protected = b64(orjson.dumps({"alg": "RS256", "x5c": x5c}))
    payload = b64(unsigned)
    sig = key.sign(f"{protected}.{payload}".encode(), padding.PKCS1v15(), hashes.SHA256())
    return orjson.dumps({"payload": payload, "signatures": [
        {"protected": protected, "header": {"x5c": x5c}, "signature": b64(sig)}]})


def verify_only(obj: dict[str, Any]) -> None:
    """The verification alone (``obj``: the signed vCon parsed): what ``load_bytes`` adds to
    unwrapping a signed vCon."""
    from viewer import signatures as sigs
    from viewer.model.types import Signature

    sig = obj["signatures"][0]
    prot = orjson.loads(base64.urlsafe_b64decode(sig["protected"] + "=="))
    pending = sigs.check_signature(Signature("RS256", None, 2, None, None), sig, prot,
                                   obj["payload"])
    sigs.finish(pending, None, datetime.now(UTC), "now")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--operations", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)

    from bench.genbig import generate
    from viewer.load import load_bytes

    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"genbig-{args.operations}.vcon.json"
    if not path.exists():
        generate(path, args.operations)
    unsigned = path.read_bytes()
    signed = signed_copy(unsigned)

    bare, crypto = import_cost(args.repeat)
    print(f"cryptography import: {1000 * (crypto - bare):.0f} ms "
          f"(interpreter alone {1000 * bare:.0f} ms, with the imports {1000 * crypto:.0f} ms)")
    floor = best(lambda: orjson.loads(unsigned), args.repeat)
    t_unsigned = best(lambda: load_bytes(unsigned), args.repeat)
    t_signed = best(lambda: load_bytes(signed), args.repeat)
    status = load_bytes(signed).source.signatures[0].verified
    outer = orjson.loads(signed)
    t_verify = best(lambda: verify_only(outer), args.repeat)
    mb = len(unsigned) / 1e6
    print(f"{args.operations:,} operations, {mb:.1f} MB unsigned, {len(signed) / 1e6:.1f} MB "
          f"signed ({status})")
    print(f"orjson.loads (floor)   {floor:.3f} s  1.00x")
    print(f"load unsigned          {t_unsigned:.3f} s  {t_unsigned / floor:.2f}x")
    print(f"load signed + verify   {t_signed:.3f} s  {t_signed / floor:.2f}x "
          f"(+{t_signed - t_unsigned:.3f} s)")
    print(f"  of which verifying   {t_verify:.3f} s  {t_verify / floor:.2f}x (signature over the "
          "whole signing input, chain; the rest is unwrapping: base64url, a second parse)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
