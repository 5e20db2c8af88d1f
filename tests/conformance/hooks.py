"""Schemathesis hooks for the pet store's conformance run.

Requests without a valid key are limited per client address, at the free
plan's 60 a minute. Schemathesis sends many such requests (its checks of
authentication, and the cases that leave the key out), and how many fall in
one minute depends on how fast the machine and the server are: a fast run
was limited (429) where those checks expect 401. So every request goes out
from a client address of its own (`X-Forwarded-For`, which the server
trusts from loopback): the requests the checks send themselves pass no hook,
so this is done where every request passes, as it is sent. Keys' limits are
unaffected: a key is its own subject.

`Idempotency-Key` makes a POST replay the first response sent under the same
key, and refuses (422 `idempotency_key_reused`) the key for another request:
behaviour a schema cannot express. Schemathesis draws header values from a
small pool, so two different generated requests would often share a key and
be refused on purpose. Just before each call, every *valid* key is therefore
made unique; invalid ones (empty, too long) are left alone so that negative
tests stay negative. `before_call` runs in every phase, unlike the data
generation hooks.
"""

import uuid

import requests
import schemathesis


def _drops_a_parameter(case):
    """Coverage cases that leave out a parameter (the `Authorization` header,
    say) must reach the server exactly as generated: editing them makes
    schemathesis re-derive the case and send what was meant to be missing."""
    data = getattr(getattr(getattr(case, "meta", None), "phase", None), "data", None)
    return "MISSING" in str(getattr(data, "scenario", "")).upper()


def _fresh_client(send):
    """`send` with each request from a documentation address (RFC 3849)
    no other request uses."""

    def sending(self, request, **kwargs):
        request.headers["X-Forwarded-For"] = "2001:db8::" + ":".join(
            uuid.uuid4().hex[i : i + 4] for i in range(0, 20, 4)
        )
        return send(self, request, **kwargs)

    return sending


requests.Session.send = _fresh_client(requests.Session.send)


@schemathesis.hook
def before_call(ctx, case, kwargs):
    if not case.headers or _drops_a_parameter(case):
        return
    value = case.headers.get("Idempotency-Key")
    if isinstance(value, str) and 1 <= len(value) <= 255:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
