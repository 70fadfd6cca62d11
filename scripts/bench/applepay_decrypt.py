"""Measures the PyPI `applepay` 0.3.0 package's EC_v1 decrypt rate (cashier-bench applepay).

It checks nothing (no signature, chain, OIDs or time): ECDH, the KDF and AES-GCM only. It is the
record of what Cashier's checks cost, not a peer to match.

stdin: JSON {"certificate": PEM, "private_key": PEM, "root_der_base64", "ephemeral_public_key", "data",
"expected", "seconds"}; stdout: operations per second.
"""
import base64
import json
import sys

from applepay.payment import Payment

from rate import operations_per_second

config = json.load(sys.stdin)
root = base64.b64decode(config["root_der_base64"])
payment = Payment(config["certificate"].encode(), config["private_key"].encode(), root_ca_der=root, aai_ca_der=root)


def decrypt():
    return payment.decrypt(config["ephemeral_public_key"], config["data"])


assert json.loads(decrypt()) == json.loads(config["expected"]), "applepay did not decrypt the token"
print(operations_per_second(decrypt, config["seconds"], warmup=50, batch=20))
