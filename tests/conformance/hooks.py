"""Schemathesis hooks for the pet store's conformance run.

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

import schemathesis


def _drops_a_parameter(case):
    """Coverage cases that leave out a parameter (the `Authorization` header,
    say) must reach the server exactly as generated: editing them makes
    schemathesis re-derive the case and send what was meant to be missing."""
    data = getattr(getattr(getattr(case, "meta", None), "phase", None), "data", None)
    return "MISSING" in str(getattr(data, "scenario", "")).upper()


@schemathesis.hook
def before_call(ctx, case, kwargs):
    if not case.headers or _drops_a_parameter(case):
        return
    value = case.headers.get("Idempotency-Key")
    if isinstance(value, str) and 1 <= len(value) <= 255:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
