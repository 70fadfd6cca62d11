"""wechatpayv3 2.0.4 against Cashier's WeChat Pay v3 sandbox (run by CashierSandboxTests).

stdin: JSON {"gateway", "payer", "mchid", "serial", "private_key", "apiv3_key", "appid", "mode",
             "platform_cert" (certificate and partner modes), "public_key" + "public_key_id" (public-key mode),
             "sub_mchid" (partner mode), "prefix"}.
Pays and queries orders, refunds and closes, and checks that callback() accepts the sandbox's
notification — in partner mode (服务商) as the service provider for sub_mchid, through
/v3/pay/partner/…. Prints one JSON line; any mismatch raises.
"""
import atexit
import json
import os
import shutil
import sys
import tempfile

from wechatpayv3 import WeChatPay, WeChatPayType

from sandbox_helpers import pay, start_receiver, wait_for

config = json.load(sys.stdin)
notify_url, received = start_receiver(lambda headers, body: wxpay.callback(headers, body), status=204)  # None when unverified

common = dict(
    wechatpay_type=WeChatPayType.NATIVE, mchid=config["mchid"], private_key=config["private_key"], cert_serial_no=config["serial"],
    appid=config["appid"], apiv3_key=config["apiv3_key"], notify_url=notify_url)
partner = config["mode"] == "partner"
sub = {"sub_mchid": config["sub_mchid"]} if partner else {}
if config["mode"] in ("certificate", "partner"):
    folder = tempfile.mkdtemp(prefix="cashier-wechatpayv3-")
    atexit.register(shutil.rmtree, folder, True)
    with open(os.path.join(folder, "platform.pem"), "w") as f:
        f.write(config["platform_cert"])
    wxpay = WeChatPay(cert_dir=folder + "/", partner_mode=partner, **common)
else:
    wxpay = WeChatPay(public_key=config["public_key"], public_key_id=config["public_key_id"], **common)
wxpay._core._gate_way = config["gateway"]

paid = config["prefix"] + "P"
code, message = wxpay.pay(description="interop", out_trade_no=paid, amount={"total": 100, "currency": "CNY"}, **sub)
assert code == 200 and json.loads(message)["code_url"].startswith("weixin://"), (code, message)
code, message = wxpay.query(out_trade_no=paid, **sub)
assert code == 200 and json.loads(message)["trade_state"] == "NOTPAY", (code, message)
if partner:
    assert json.loads(message)["sub_mchid"] == config["sub_mchid"] and json.loads(message)["sp_mchid"] == config["mchid"], message

assert pay(config["payer"], "wechat", paid)["trade_state"] == "SUCCESS"
wait_for(received)
assert received and received[0] is not None, "callback() refused the sandbox's notification"
resource = received[0]["resource"]
assert resource["out_trade_no"] == paid and resource["trade_state"] == "SUCCESS" and resource["amount"]["total"] == 100, resource
if partner:
    assert resource["sub_mchid"] == config["sub_mchid"] and resource["sp_mchid"] == config["mchid"], resource

code, message = wxpay.query(out_trade_no=paid, **sub)
assert code == 200 and json.loads(message)["transaction_id"] == resource["transaction_id"], message
code, message = wxpay.refund(out_refund_no=paid + "R", amount={"refund": 40, "total": 100, "currency": "CNY"}, out_trade_no=paid, **sub)
assert code == 200 and json.loads(message)["status"] == "SUCCESS", (code, message)

closed = config["prefix"] + "C"
code, _ = wxpay.pay(description="interop", out_trade_no=closed, amount={"total": 5, "currency": "CNY"}, **sub)
assert code == 200
code, _ = wxpay.close(out_trade_no=closed, **sub)
assert code == 204, code
code, message = wxpay.query(out_trade_no=closed, **sub)
assert json.loads(message)["trade_state"] == "CLOSED", message
if partner:
    # Another sub-merchant cannot read this one's order.
    code, message = wxpay.query(out_trade_no=closed, sub_mchid="1900000999")
    assert code == 404 and json.loads(message)["code"] == "ORDER_NOT_EXIST", (code, message)
print(json.dumps({"mode": config["mode"], "transaction_id": resource["transaction_id"], "refund": "SUCCESS", "close": "CLOSED"}))
