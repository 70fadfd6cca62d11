"""wechatpayv3 2.0.4 against Cashier's WeChat Pay v3 sandbox (run by CashierSandboxTests).

stdin: JSON {"gateway", "payer", "mchid", "serial", "private_key", "apiv3_key", "appid", "mode",
             "platform_cert" (certificate mode), "public_key" + "public_key_id" (public-key mode), "prefix"}.
Pays and queries orders, refunds and closes, and checks that callback() accepts the sandbox's
notification. Prints one JSON line; any mismatch raises.
"""
import json
import os
import sys
import tempfile

from wechatpayv3 import WeChatPay, WeChatPayType

from sandbox_helpers import pay, start_receiver, wait_for

config = json.load(sys.stdin)
notify_url, received = start_receiver(lambda headers, body: wxpay.callback(headers, body), status=204)  # None when unverified

common = dict(
    wechatpay_type=WeChatPayType.NATIVE, mchid=config["mchid"], private_key=config["private_key"], cert_serial_no=config["serial"],
    appid=config["appid"], apiv3_key=config["apiv3_key"], notify_url=notify_url)
if config["mode"] == "certificate":
    folder = tempfile.mkdtemp()
    with open(os.path.join(folder, "platform.pem"), "w") as f:
        f.write(config["platform_cert"])
    wxpay = WeChatPay(cert_dir=folder + "/", **common)
else:
    wxpay = WeChatPay(public_key=config["public_key"], public_key_id=config["public_key_id"], **common)
wxpay._core._gate_way = config["gateway"]

paid = config["prefix"] + "P"
code, message = wxpay.pay(description="interop", out_trade_no=paid, amount={"total": 100, "currency": "CNY"})
assert code == 200 and json.loads(message)["code_url"].startswith("weixin://"), (code, message)
code, message = wxpay.query(out_trade_no=paid)
assert code == 200 and json.loads(message)["trade_state"] == "NOTPAY", (code, message)

assert pay(config["payer"], "wechat", paid)["trade_state"] == "SUCCESS"
wait_for(received)
assert received and received[0] is not None, "callback() refused the sandbox's notification"
resource = received[0]["resource"]
assert resource["out_trade_no"] == paid and resource["trade_state"] == "SUCCESS" and resource["amount"]["total"] == 100, resource

code, message = wxpay.query(out_trade_no=paid)
assert code == 200 and json.loads(message)["transaction_id"] == resource["transaction_id"], message
code, message = wxpay.refund(out_refund_no=paid + "R", amount={"refund": 40, "total": 100, "currency": "CNY"}, out_trade_no=paid)
assert code == 200 and json.loads(message)["status"] == "SUCCESS", (code, message)

closed = config["prefix"] + "C"
code, _ = wxpay.pay(description="interop", out_trade_no=closed, amount={"total": 5, "currency": "CNY"})
assert code == 200
code, _ = wxpay.close(out_trade_no=closed)
assert code == 204, code
code, message = wxpay.query(out_trade_no=closed)
assert json.loads(message)["trade_state"] == "CLOSED", message
print(json.dumps({"mode": config["mode"], "transaction_id": resource["transaction_id"], "refund": "SUCCESS", "close": "CLOSED"}))
