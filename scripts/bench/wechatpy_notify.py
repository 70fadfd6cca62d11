"""Measures wechatpy's v2 notification parse + verify rate (cashier-bench wechat).

stdin: JSON {"appid", "mch_id", "api_key", "xml", "seconds"}; stdout: operations per second.
"""
import json
import sys
import time

from wechatpy.pay import WeChatPay

config = json.load(sys.stdin)
pay = WeChatPay(appid=config["appid"], api_key=config["api_key"], mch_id=config["mch_id"])
xml = config["xml"]
result = pay.parse_payment_result(xml)  # raises InvalidSignatureException when it does not verify
assert result["total_fee"] == int(config["total_fee"]), result
for _ in range(200):
    pay.parse_payment_result(xml)
count = 0
start = time.perf_counter()
deadline = start + float(config["seconds"])
now = start
while now < deadline:
    for _ in range(100):
        pay.parse_payment_result(xml)
    count += 100
    now = time.perf_counter()
print(count / (now - start))
