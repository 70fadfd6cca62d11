"""What the python-alipay-sdk 3.4.0 interop scripts (agreements, royalty) share: the config on stdin,
the SDK's RSA2 client with the sandbox as its gateway, the sandbox's control calls, and a
notification's form fields."""
import functools
import json
import sys
import urllib.parse

from alipay import AliPay

import sandbox_helpers


def connect():
    """Reads the config on stdin. Returns (config, client, control): an AliPay for its app whose gateway is
    the sandbox's, and control(path, body) calling the sandbox's JSON control routes."""
    config = json.load(sys.stdin)
    client = AliPay(appid=config["app_id"], app_notify_url=None, app_private_key_string=config["app_private_key"],
                    alipay_public_key_string=config["alipay_public_key"], sign_type="RSA2")
    client._gateway = config["gateway"]
    return config, client, functools.partial(sandbox_helpers.control, config["payer"])


def notification_fields(body):
    """A notification's form body as (fields without sign, sign); blank values are kept."""
    data = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()}
    signature = data.pop("sign")
    return data, signature
