"""Measures wechatpy's v2 notification parse + verify rate (cashier-bench wechat).

stdin: JSON {"appid", "mch_id", "api_key", "xml", "seconds"}; stdout: operations per second.
"""
import json
import sys

from wechatpy.pay import WeChatPay

from rate import operations_per_second

config = json.load(sys.stdin)
pay = WeChatPay(appid=config["appid"], api_key=config["api_key"], mch_id=config["mch_id"])
xml = config["xml"]
result = pay.parse_payment_result(xml)  # raises InvalidSignatureException when it does not verify
assert result["total_fee"] == int(config["total_fee"]), result
print(operations_per_second(lambda: pay.parse_payment_result(xml), config["seconds"], warmup=200, batch=100))
