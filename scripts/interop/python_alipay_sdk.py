"""python-alipay-sdk 3.4.0 against Cashier's Alipay sandbox (run by CashierSandboxTests).

stdin: JSON {"gateway", "payer", "app_id", "app_private_key", "alipay_public_key", "prefix"}.
Creates, queries, refunds and closes trades (its requests are verified by the sandbox, the
sandbox's answers by it), and checks that its verify() accepts the sandbox's notification.
"""
import json
import sys
import urllib.parse

from alipay import AliPay

from sandbox_helpers import pay, start_receiver, wait_for

config = json.load(sys.stdin)
client = AliPay(appid=config["app_id"], app_notify_url=None, app_private_key_string=config["app_private_key"],
                alipay_public_key_string=config["alipay_public_key"], sign_type="RSA2")
client._gateway = config["gateway"]


def verify_notification(headers, body):
    data = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()}
    signature = data.pop("sign")
    return client.verify(dict(data), signature), data


notify_url, received = start_receiver(verify_notification, reply=b"success")

paid = config["prefix"] + "P"
created = client.api_alipay_trade_precreate(subject="interop", out_trade_no=paid, total_amount="0.88", notify_url=notify_url)
assert created["code"] == "10000" and created["qr_code"].startswith("https://"), created
queried = client.api_alipay_trade_query(out_trade_no=paid)
assert queried["trade_status"] == "WAIT_BUYER_PAY", queried

assert pay(config["payer"], "alipay", paid)["trade_state"] == "TRADE_SUCCESS"
assert wait_for(received), "no notification arrived"
verified, notification = received[0]
assert verified, "python-alipay-sdk's verify() refused the sandbox's notification"
assert notification["out_trade_no"] == paid and notification["total_amount"] == "0.88", notification

assert client.api_alipay_trade_query(out_trade_no=paid)["trade_status"] == "TRADE_SUCCESS"
refund = client.api_alipay_trade_refund(refund_amount="0.30", out_trade_no=paid, out_request_no=paid + "R1")
assert refund["code"] == "10000" and refund["refund_fee"] == "0.30", refund
# The refund's own notification: the same trade_status_sync with out_biz_no and refund_fee, verified by the SDK.
import time
for _ in range(500):
    if len(received) >= 2:
        break
    time.sleep(0.01)
assert len(received) >= 2, "no refund notification arrived"
refund_verified, refund_notification = received[1]
assert refund_verified, "python-alipay-sdk's verify() refused the refund notification"
assert refund_notification["out_biz_no"] == paid + "R1" and refund_notification["refund_fee"] == "0.30", refund_notification
too_much = client.api_alipay_trade_refund(refund_amount="0.59", out_trade_no=paid, out_request_no=paid + "R2")
assert too_much["code"] == "40004", too_much

closed = config["prefix"] + "C"
client.api_alipay_trade_precreate(subject="interop", out_trade_no=closed, total_amount="0.05", notify_url=notify_url)
assert client.api_alipay_trade_close(out_trade_no=closed)["code"] == "10000"
assert client.api_alipay_trade_query(out_trade_no=closed)["trade_status"] == "TRADE_CLOSED"
missing = client.api_alipay_trade_query(out_trade_no=config["prefix"] + "NONE")
assert missing["sub_code"] == "ACQ.TRADE_NOT_EXIST", missing

# Payment codes at the counter (alipay.trade.pay, scene bar_code): paid at once, after the payer confirms, cancelled, refused.
code = "286543210987650000"
counter = client.api_alipay_trade_pay(out_trade_no=paid + "M1", scene="bar_code", auth_code=code, subject="counter", total_amount="1.20")
assert counter["code"] == "10000" and counter["total_amount"] == "1.20", counter
waiting = client.api_alipay_trade_pay(out_trade_no=paid + "M2", scene="bar_code", auth_code=code[:-4] + "1111", subject="counter", total_amount="1.20")
assert waiting["code"] == "10003", waiting
status = "WAIT_BUYER_PAY"
for _ in range(100):
    status = client.api_alipay_trade_query(out_trade_no=paid + "M2")["trade_status"]
    if status != "WAIT_BUYER_PAY":
        break
    time.sleep(0.05)
assert status == "TRADE_SUCCESS", status
walked = client.api_alipay_trade_pay(out_trade_no=paid + "M3", scene="bar_code", auth_code=code[:-4] + "2222", subject="counter", total_amount="1.20")
assert walked["code"] == "10003", walked
cancelled = client.api_alipay_trade_cancel(out_trade_no=paid + "M3")
assert cancelled["code"] == "10000" and cancelled["retry_flag"] == "N" and cancelled["action"] == "close", cancelled
assert client.api_alipay_trade_query(out_trade_no=paid + "M3")["trade_status"] == "TRADE_CLOSED"
poor = client.api_alipay_trade_pay(out_trade_no=paid + "M4", scene="bar_code", auth_code=code[:-4] + "3333", subject="counter", total_amount="1.20")
assert poor["sub_code"] == "ACQ.BUYER_BALANCE_NOT_ENOUGH", poor

# As an ISV (third-party app) for a merchant that granted it a token: ISVAliPay adds app_auth_token to every call.
import urllib.request
from alipay import ISVAliPay
base = config["payer"].rsplit("/sandbox/pay", 1)[0]
grant = urllib.request.Request(base + "/sandbox/alipay/app_auth_tokens", method="POST",
                               data=json.dumps({"app_auth_token": "isvToken", "merchant_app_id": "2021000000000077"}).encode())
assert json.load(urllib.request.urlopen(grant))["merchant_app_id"] == "2021000000000077"
isv = ISVAliPay(appid=config["app_id"], app_notify_url=None, app_private_key_string=config["app_private_key"],
                alipay_public_key_string=config["alipay_public_key"], sign_type="RSA2", app_auth_token="isvToken")
isv._gateway = config["gateway"]
isv_paid = config["prefix"] + "I"
created = isv.api_alipay_trade_precreate(subject="isv", out_trade_no=isv_paid, total_amount="0.50", notify_url=notify_url)
assert created["code"] == "10000", created
assert client.api_alipay_trade_query(out_trade_no=isv_paid)["sub_code"] == "ACQ.TRADE_NOT_EXIST"  # not the ISV's own trade
seen = len(received)
assert pay(config["payer"], "alipay", isv_paid)["trade_state"] == "TRADE_SUCCESS"
for _ in range(500):
    if len(received) > seen:
        break
    time.sleep(0.01)
isv_verified, isv_notification = received[seen]
assert isv_verified and isv_notification["auth_app_id"] == "2021000000000077", isv_notification
assert isv.api_alipay_trade_query(out_trade_no=isv_paid)["trade_status"] == "TRADE_SUCCESS"

print(json.dumps({"notification": notification["trade_no"], "refund": refund["refund_fee"], "close": "TRADE_CLOSED",
                  "isv": isv_notification["auth_app_id"],
                  "trade_pay": counter["trade_no"], "password": status, "cancel": cancelled["action"],
                  "refund_notification": refund_notification["out_biz_no"]}))
