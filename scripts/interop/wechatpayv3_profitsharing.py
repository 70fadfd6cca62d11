"""wechatpayv3 2.0.4's profit-sharing (分账) methods against Cashier's WeChat Pay v3 sandbox,
unmodified (run by CashierSandboxTests' WeChatPayV3ProfitSharingInteropTests, with the sandbox's
profit-sharing delay at 0 so requests finish at the next call).

stdin: JSON {"gateway", "sandbox", "mchid", "serial", "private_key", "apiv3_key", "appid", "platform_cert", "prefix"}.
Adds a merchant receiver (its name encrypted by wechatpayv3 with the platform certificate, sent with
its Wechatpay-Serial) and a person, pays a trade with settle_info.profit_sharing, shares it
(PROCESSING, then FINISHED), has a share past 30 % refused, returns part of the merchant's share and
queries the return (profitsharing_return_query's `?&out_order_no=` path), unfreezes the rest and
reads the unsplit amount before and after; then asks for today's profit-sharing bill
(profitsharing_bill: hash_type SHA1, hash_value, download_url on the gateway), downloads it with
download_bill, checks its SHA1, gunzips it and finds the shares, the return and the unfreeze in it
(the sandbox's assumed columns), and a day with no bill answered 400 NO_STATEMENT_EXIST. Prints one
JSON line; any mismatch raises.
"""
import gzip
import hashlib
import json
import sys
from datetime import datetime, timedelta, timezone

from sandbox_helpers import pay
from wechatpayv3_setup import connect

config = json.load(sys.stdin)
wxpay, notify_url, received, _ = connect(config, "profitsharing")
merchant, person = "1900000110", "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"


def answer(result, status=200):
    code, message = result
    assert code == status, (code, message)
    return json.loads(message) if message else {}


# Receivers: a merchant by its full name (encrypted), a person without one; adding again is fine.
added = answer(wxpay.profitsharing_add_receiver("MERCHANT_ID", merchant, "PARTNER", name="深圳市示例科技有限公司"))
assert added["account"] == merchant and added["name"] != "深圳市示例科技有限公司", added
answer(wxpay.profitsharing_add_receiver("MERCHANT_ID", merchant, "PARTNER", name="深圳市示例科技有限公司"))
answer(wxpay.profitsharing_add_receiver("PERSONAL_OPENID", person, "CUSTOM", custom_relation="代理商"))
answer(wxpay.profitsharing_add_receiver("PERSONAL_OPENID", "oDeletedBeforeUse", "USER"))
answer(wxpay.profitsharing_delete_receiver("PERSONAL_OPENID", "oDeletedBeforeUse"))

# A trade paid for profit sharing.
number = config["prefix"] + "PS"
answer(wxpay.pay(description="interop", out_trade_no=number, amount={"total": 10000, "currency": "CNY"},
                 settle_info={"profit_sharing": True}))
assert pay(config["sandbox"] + "sandbox/pay", "wechat", number)["trade_state"] == "SUCCESS"
transaction_id = answer(wxpay.query(out_trade_no=number))["transaction_id"]
assert answer(wxpay.profitsharing_amount_query(transaction_id))["unsplit_amount"] == 10000

receivers = [
    {"type": "MERCHANT_ID", "account": merchant, "name": "深圳市示例科技有限公司", "amount": 2000, "description": "分给商户"},
    {"type": "PERSONAL_OPENID", "account": person, "amount": 500, "description": "分给个人"},
]
order = answer(wxpay.profitsharing_order(transaction_id, number + "-1", receivers, False))
assert order["state"] == "PROCESSING" and [r["result"] for r in order["receivers"]] == ["PENDING", "PENDING"], order
finished = answer(wxpay.profitsharing_order_query(transaction_id, number + "-1"))
assert finished["state"] == "FINISHED" and [r["result"] for r in finished["receivers"]] == ["SUCCESS", "SUCCESS"], finished
assert finished["order_id"] == order["order_id"]
assert answer(wxpay.profitsharing_amount_query(transaction_id))["unsplit_amount"] == 7500

# Past 30 % to others, or to a receiver deleted: refused.
over = answer(wxpay.profitsharing_order(
    transaction_id, number + "-2", [{"type": "PERSONAL_OPENID", "account": person, "amount": 501, "description": "超额"}], False), 400)
assert over["code"] == "INVALID_REQUEST", over
gone = answer(wxpay.profitsharing_order(
    transaction_id, number + "-3", [{"type": "PERSONAL_OPENID", "account": "oDeletedBeforeUse", "amount": 1, "description": "d"}],
    False), 400)
assert gone["code"] == "INVALID_REQUEST", gone

# A return from the merchant's share, and its query (wechatpayv3 writes `?&out_order_no=`).
returned = answer(wxpay.profitsharing_return(number + "-R1", merchant, 500, "用户退款", out_order_no=number + "-1"))
assert returned["result"] == "PROCESSING" and returned["amount"] == 500, returned
queried = answer(wxpay.profitsharing_return_query(number + "-1", number + "-R1"))
assert queried["result"] == "SUCCESS" and queried["return_id"] == returned["return_id"], queried
failed = answer(wxpay.profitsharing_return(number + "-R2", merchant, 1501, "超额回退", out_order_no=number + "-1"))
assert failed["result"] == "FAILED" and failed["fail_reason"] == "BALANCE_NOT_ENOUGH", failed

# The rest unfrozen: nothing left to share, no more shares.
unfrozen = answer(wxpay.profitsharing_unfreeze(transaction_id, number + "-U", "解冻全部剩余资金"))
assert unfrozen["receivers"][0]["amount"] == 8000 and unfrozen["receivers"][0]["account"] == config["mchid"], unfrozen
assert answer(wxpay.profitsharing_amount_query(transaction_id))["unsplit_amount"] == 0
ended = answer(wxpay.profitsharing_order(
    transaction_id, number + "-4", [{"type": "MERCHANT_ID", "account": merchant, "amount": 1, "description": "d"}], False), 400)
assert ended["code"] == "INVALID_REQUEST", ended

# Today's profit-sharing bill (Beijing time): a signed listing, then the gzipped file by its SHA1.
today = datetime.now(timezone(timedelta(hours=8))).strftime("%Y-%m-%d")
listing = answer(wxpay.profitsharing_bill(bill_date=today))
assert listing["hash_type"] == "SHA1" and len(listing["hash_value"]) == 40, listing
assert listing["download_url"].startswith(config["gateway"].rstrip("/") + "/v3/billdownload/"), listing
code, content = wxpay.download_bill(listing["download_url"])
assert code == 200 and hashlib.sha1(content).hexdigest() == listing["hash_value"].lower(), code
rows = [row.split(",") for row in gzip.decompress(content).decode("utf-8").splitlines() if row]
header, detail = rows[0], [[cell.lstrip("`") for cell in row] for row in rows[1:-2]]
assert header[0] == "分账发起时间" and rows[-2][0] == "分账总笔数", rows
column = {name: header.index(name) for name in ("商户分账单号", "商户回退单号", "业务类型", "分账接收方", "分账金额（元）", "处理状态")}
lines = sorted(
    (row[column["业务类型"]], row[column["商户分账单号"]], row[column["商户回退单号"]], row[column["分账接收方"]],
     row[column["分账金额（元）"]], row[column["处理状态"]])
    for row in detail if row[column["商户分账单号"]].startswith(number))
assert lines == sorted([
    ("分账", number + "-1", "", merchant, "20.00", "SUCCESS"), ("分账", number + "-1", "", person, "5.00", "SUCCESS"),
    ("回退", number + "-1", number + "-R1", merchant, "5.00", "SUCCESS"),
    ("解冻给分账方", number + "-U", "", config["mchid"], "80.00", "SUCCESS"),
]), lines
none = answer(wxpay.profitsharing_bill(bill_date="2001-01-01"), 400)
assert none["code"] == "NO_STATEMENT_EXIST", none

print(json.dumps({"transaction_id": transaction_id, "state": finished["state"], "return": queried["result"], "unsplit": "0",
                  "bill": str(len(lines))}))
