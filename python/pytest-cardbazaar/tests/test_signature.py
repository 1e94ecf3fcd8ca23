"""The webhook signature check on its own (docs/api.md, "Verifying a delivery")."""

import hashlib
import hmac

from pytest_cardbazaar import verify_signature


def sign(secret: str, t: int, body: bytes) -> str:
    return f"t={t},v1=" + hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def test_a_signature_over_the_raw_body_verifies():
    body = b'{"idEvent":1,"type":"message.received"}'
    header = sign("whsec_abc", 1764075600, body)
    assert verify_signature("whsec_abc", header, body, now=1764075600 + 299)


def test_a_wrong_secret_body_or_time_does_not():
    body = b'{"idEvent":1}'
    header = sign("whsec_abc", 1764075600, body)
    assert not verify_signature("whsec_abd", header, body, now=1764075600)
    assert not verify_signature("whsec_abc", header, body + b" ", now=1764075600)
    assert not verify_signature("whsec_abc", header, body, now=1764075600 + 301)
    assert not verify_signature("whsec_abc", None, body)
    assert not verify_signature("whsec_abc", "t=x,v1=00", body)
