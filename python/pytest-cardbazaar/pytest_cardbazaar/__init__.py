"""pytest-cardbazaar: test a Cardmarket API 2.0 client against a cardbazaar sandbox.

Installed (`pip install ./python/pytest-cardbazaar`), pytest finds the fixtures through the
`pytest11` entry point; from a checkout without installing, a conftest loads
`pytest_cardbazaar.plugin` (see tests/conftest.py).
"""

from .client import Cardbazaar, ControlError, SignedSession, credentials_of, parse_time
from .server import ServerProcess, StartError
from .webhooks import Delivery, Receiver, Website, register_endpoint, verify_signature

__all__ = [
    "Cardbazaar",
    "ControlError",
    "Delivery",
    "Receiver",
    "ServerProcess",
    "SignedSession",
    "Website",
    "StartError",
    "credentials_of",
    "parse_time",
    "register_endpoint",
    "verify_signature",
]
