"""Measures python-alipay-sdk 3.4.0's notification verify rate (cashier-bench alipay).

stdin: JSON {"fields": {...}, "public_key": PEM, "private_key": PEM, "seconds"}; stdout: operations per second.
"""
import json
import sys

from alipay import AliPay

from rate import operations_per_second

config = json.load(sys.stdin)
client = AliPay(appid=config["fields"]["app_id"], app_notify_url=None, app_private_key_string=config["private_key"],
                alipay_public_key_string=config["public_key"], sign_type="RSA2")


def verify():
    data = dict(config["fields"])
    signature = data.pop("sign")
    return client.verify(data, signature)


assert verify(), "python-alipay-sdk did not verify the notification"
print(operations_per_second(verify, config["seconds"], warmup=50, batch=20))
