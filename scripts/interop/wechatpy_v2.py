"""wechatpy 1.8.18 against Cashier's WeChat Pay v2 sandbox (run by CashierSandboxTests).

stdin: JSON {"gateway": "http://127.0.0.1:P/wechat/", "payer": "http://127.0.0.1:P/sandbox/pay",
             "appid", "mch_id", "api_key", "prefix"}.
Prints one JSON line of results and exits 0, or raises (non-zero exit) at the first mismatch.
"""
import json
import sys

from wechatpy.exceptions import WeChatPayException
from wechatpy.pay import WeChatPay

from sandbox_helpers import pay, start_receiver, wait_for

config = json.load(sys.stdin)
pay_client = WeChatPay(appid=config["appid"], api_key=config["api_key"], mch_id=config["mch_id"])
pay_client.API_BASE_URL = config["gateway"]
notify_url, received = start_receiver(
    lambda headers, body: pay_client.parse_payment_result(body),  # raises when the signature does not verify
    reply=b"<xml><return_code><![CDATA[SUCCESS]]></return_code><return_msg><![CDATA[OK]]></return_msg></xml>")
results = {}

paid = config["prefix"] + "P"
created = pay_client.order.create(trade_type="APP", body="interop", total_fee=88, notify_url=notify_url, client_ip="127.0.0.1", out_trade_no=paid)
assert created["prepay_id"].startswith("wx"), created
assert pay_client.order.query(out_trade_no=paid)["trade_state"] == "NOTPAY"
results["create"] = created["prepay_id"]

assert pay(config["payer"], "wechat", paid)["trade_state"] == "SUCCESS"
wait_for(received)
assert received and received[0]["out_trade_no"] == paid and received[0]["total_fee"] == 88, received
results["notification"] = received[0]["transaction_id"]

queried = pay_client.order.query(out_trade_no=paid)
assert queried["trade_state"] == "SUCCESS" and queried["transaction_id"] == received[0]["transaction_id"], queried

refund = pay_client.refund.apply(total_fee=88, refund_fee=30, out_refund_no=paid + "R1", out_trade_no=paid)
assert refund["refund_fee"] == "30", refund
refunds = pay_client.refund.query(out_refund_no=paid + "R1")
assert refunds["refund_count"] == "1" and refunds["refund_status_0"] == "SUCCESS", refunds
try:
    pay_client.refund.apply(total_fee=88, refund_fee=59, out_refund_no=paid + "R2", out_trade_no=paid)
    raise AssertionError("a refund above the paid amount was accepted")
except WeChatPayException as error:
    assert error.errcode == "INVALID_REQUEST", error
results["refund"] = refund["refund_id"]

closed = config["prefix"] + "C"
pay_client.order.create(trade_type="NATIVE", body="interop", total_fee=5, notify_url=notify_url, client_ip="127.0.0.1", out_trade_no=closed, product_id="p1")
pay_client.order.close(out_trade_no=closed)
assert pay_client.order.query(out_trade_no=closed)["trade_state"] == "CLOSED"
try:
    pay_client.order.create(trade_type="APP", body="interop", total_fee=88, notify_url=notify_url, client_ip="127.0.0.1", out_trade_no=paid)
    raise AssertionError("a paid order was placed again")
except WeChatPayException as error:
    assert error.errcode == "ORDERPAID", error
results["close"] = "CLOSED"

# Payment codes at the counter (pay/micropay): paid at once, after the password, reversed, refused.
import time
code = "134567890123450000"
counter = pay_client.micropay.create(body="counter", total_fee=120, auth_code=code, client_ip="127.0.0.1", out_trade_no=paid + "M1")
assert counter["result_code"] == "SUCCESS" and counter["transaction_id"].startswith("42000"), counter
assert pay_client.micropay.query(out_trade_no=paid + "M1")["trade_state"] == "SUCCESS"
results["micropay"] = counter["transaction_id"]
try:
    pay_client.micropay.create(body="counter", total_fee=120, auth_code=code[:-4] + "1111", client_ip="127.0.0.1", out_trade_no=paid + "M2")
    raise AssertionError("a password payment was paid at once")
except WeChatPayException as error:
    assert error.errcode == "USERPAYING", error
state = "USERPAYING"
for _ in range(100):
    state = pay_client.micropay.query(out_trade_no=paid + "M2")["trade_state"]
    if state != "USERPAYING":
        break
    time.sleep(0.05)
assert state == "SUCCESS", state
results["password"] = state
try:
    pay_client.micropay.create(body="counter", total_fee=120, auth_code=code[:-4] + "2222", client_ip="127.0.0.1", out_trade_no=paid + "M3")
    raise AssertionError("a payer who walked away paid")
except WeChatPayException as error:
    assert error.errcode == "USERPAYING", error
reversed_ = pay_client.order.reverse(out_trade_no=paid + "M3")
assert reversed_["recall"] == "N", reversed_
assert pay_client.micropay.query(out_trade_no=paid + "M3")["trade_state"] == "REVOKED"
results["reverse"] = "REVOKED"
try:
    pay_client.micropay.create(body="counter", total_fee=120, auth_code=code[:-4] + "3333", client_ip="127.0.0.1", out_trade_no=paid + "M4")
    raise AssertionError("a payer without balance paid")
except WeChatPayException as error:
    assert error.errcode == "NOTENOUGH", error
try:
    pay_client.micropay.create(body="counter", total_fee=120, auth_code="286543210987650000", client_ip="127.0.0.1", out_trade_no=paid + "M5")
    raise AssertionError("an Alipay code was taken by WeChat Pay")
except WeChatPayException as error:
    assert error.errcode == "AUTH_CODE_INVALID", error

# As a service provider (服务商): every call names the sub-merchant; its orders are its own.
partner = WeChatPay(appid=config["appid"], api_key=config["api_key"], mch_id=config["mch_id"], sub_mch_id="1900000777")
partner.API_BASE_URL = config["gateway"]
sub_paid = config["prefix"] + "S"
created = partner.order.create(trade_type="NATIVE", body="partner", total_fee=300, notify_url=notify_url, client_ip="127.0.0.1", out_trade_no=sub_paid, product_id="p2")
assert created["sub_mch_id"] == "1900000777", created
assert pay(config["payer"], "wechat", sub_paid)["trade_state"] == "SUCCESS"
for _ in range(500):
    if any(n["out_trade_no"] == sub_paid for n in received):
        break
    time.sleep(0.01)
notified = [n for n in received if n["out_trade_no"] == sub_paid]
assert notified and notified[0]["sub_mch_id"] == "1900000777", received
assert partner.order.query(out_trade_no=sub_paid)["trade_state"] == "SUCCESS"
refund = partner.refund.apply(total_fee=300, refund_fee=100, out_refund_no=sub_paid + "R", out_trade_no=sub_paid)
assert refund["sub_mch_id"] == "1900000777" and refund["refund_fee"] == "100", refund
try:
    pay_client.order.query(out_trade_no=sub_paid)  # the service provider's own orders do not include it
    raise AssertionError("a sub-merchant's order was read without its sub_mch_id")
except WeChatPayException as error:
    assert error.errcode == "ORDERNOTEXIST", error
results["partner"] = notified[0]["transaction_id"]

impostor = WeChatPay(appid=config["appid"], api_key="0" * 32, mch_id=config["mch_id"])
impostor.API_BASE_URL = config["gateway"]
try:
    impostor.order.query(out_trade_no=paid)
    raise AssertionError("a request signed with the wrong key was answered")
except WeChatPayException as error:
    assert error.return_code == "FAIL", error
results["wrong_key"] = "refused"
print(json.dumps(results))
