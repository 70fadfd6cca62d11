"""wechatpy 1.8.18's withholding (委托代扣, client.withhold.*) against Cashier's WeChat Pay v2 sandbox
(run by CashierSandboxTests).

stdin: JSON {"gateway": "http://127.0.0.1:P/wechat/", "contracts": "http://127.0.0.1:P/sandbox/wechat/contracts/",
             "appid", "mch_id", "api_key", "plan_id", "prefix"}.
The sandbox settles deductions a moment after accepting them (its deduction delay, set by the test).
Prints one JSON line of results and exits 0, or raises (non-zero exit) at the first mismatch.
"""
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import wechatpy.pay.api.withhold as withhold_module
from wechatpy.exceptions import WeChatPayException
from wechatpy.pay import WeChatPay

from sandbox_helpers import start_receiver, wait_for

# The one patch: apply_deduct fills spbill_create_ip from get_external_ip(), which resolves
# api.mch.weixin.qq.com by DNS (no network in tests). Everything else runs as published.
withhold_module.get_external_ip = lambda: "127.0.0.1"

config = json.load(sys.stdin)
client = WeChatPay(appid=config["appid"], api_key=config["api_key"], mch_id=config["mch_id"])
client.API_BASE_URL = config["gateway"]
plan_id = config["plan_id"]
# parse_payment_result checks the MD5 sign of any v2 notification: the contract's and the deduction's.
notify_url, received = start_receiver(
    lambda headers, body: client.parse_payment_result(body),
    reply=b"<xml><return_code><![CDATA[SUCCESS]]></return_code><return_msg><![CDATA[OK]]></return_msg></xml>")
results = {}


def payer(path, body):
    """The sandbox's payer API: (status, JSON answer)."""
    request = urllib.request.Request(
        config["contracts"] + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def arrived(predicate, seconds=30.0):
    """The first notification received that satisfies predicate (bounded wait)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        for item in list(received):
            if predicate(item):
                return item
        time.sleep(0.01)
    raise AssertionError("no such notification arrived: %r" % received)


def settled(out_trade_no, seconds=30.0):
    """Queries the deduction until it is no longer ACCEPT (bounded)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        state = client.withhold.query_order(out_trade_no=out_trade_no)["trade_state"]
        if state != "ACCEPT":
            return state
        time.sleep(0.05)
    raise AssertionError("deduction %s never settled" % out_trade_no)


# Signing: apply_signing's entrustweb address (MD5) opens the sandbox's signing page; the payer agrees.
code = config["prefix"] + "K"
signing = client.withhold.apply_signing(plan_id=plan_id, contract_code=code, contract_display_account="interop", notify_url=notify_url)
assert signing["base_url"] == config["gateway"] + "papay/entrustweb", signing
address = signing["base_url"] + "?" + urllib.parse.urlencode(signing["data"], quote_via=urllib.parse.quote)
with urllib.request.urlopen(address) as page:
    assert page.status == 200 and b'id="agree"' in page.read()
status, contract = payer("sign", {"plan_id": plan_id, "contract_code": code, "outcome": "agree"})
assert status == 200 and contract["contract_state"] == "0", contract
contract_id = contract["contract_id"]
added = arrived(lambda item: item.get("change_type") == "ADD" and item.get("contract_code") == code)
assert added["contract_id"] == contract_id and added["plan_id"] == plan_id, added
results["sign"] = contract_id

queried = client.withhold.query_signing(contract_id=contract_id)
assert queried["contract_state"] == "0" and queried["contract_code"] == code, queried
assert client.withhold.query_signing(plan_id=plan_id, contract_code=code)["contract_id"] == contract_id
results["query_signing"] = queried["contract_state"]

# A deduction: accepted (ACCEPT), then SUCCESS and the payment notification with trade_type PAP.
first = config["prefix"] + "D1"
accepted = client.withhold.apply_deduct(body="interop", total_fee=990, contract_id=contract_id, notify_url=notify_url, out_trade_no=first)
assert accepted["result_code"] == "SUCCESS", accepted
assert client.withhold.query_order(out_trade_no=first)["trade_state"] == "ACCEPT"
assert settled(first) == "SUCCESS"
paid = arrived(lambda item: item.get("out_trade_no") == first)
assert paid["trade_type"] == "PAP" and paid["total_fee"] == 990 and paid["result_code"] == "SUCCESS", paid
results["deduct"] = paid["transaction_id"]

# The payer's balance is short for the next one: accepted, then PAY_FAIL.
status, _ = payer("balance", {"contract_id": contract_id, "outcome": "insufficient"})
assert status == 200
second = config["prefix"] + "D2"
client.withhold.apply_deduct(body="interop", total_fee=990, contract_id=contract_id, notify_url=notify_url, out_trade_no=second)
results["pay_fail"] = settled(second)
assert results["pay_fail"] == "PAY_FAIL", results

# The merchant ends the contract: mode 3, DELETE, and no deduction is accepted under it again.
client.withhold.apply_cancel_signing(contract_id=contract_id, contract_termination_remark="interop")
ended = client.withhold.query_signing(contract_id=contract_id)
assert ended["contract_state"] == "1" and ended["contract_termination_mode"] == "3", ended
arrived(lambda item: item.get("change_type") == "DELETE" and item.get("contract_id") == contract_id)
results["cancel"] = ended["contract_termination_mode"]
try:
    client.withhold.apply_deduct(body="interop", total_fee=990, contract_id=contract_id, notify_url=notify_url, out_trade_no=config["prefix"] + "D3")
    raise AssertionError("a deduction under an ended contract was accepted")
except WeChatPayException as error:
    assert error.errcode == "CONTRACT_NOT_EXIST", error
results["after_cancel"] = "CONTRACT_NOT_EXIST"

print(json.dumps(results))
