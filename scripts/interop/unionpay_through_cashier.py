"""The independent UnionPay reference (unionpay_rules.py, written from the published rules with
`cryptography` alone) checking what `cashier-sandbox serve` did at UnionPay, through the merchant
API only: run by UnionPayReferenceInteropTests.

The merchant's backend creates an order and starts `unionpay.applepay` (as the seed's Apple Pay
request: CNY, a device whose Apple Pay holds a China UnionPay card); the payer pays the `tn`; the
server says paid. The reference then asks UnionPay's gateway itself, signing with the merchant's
certificate and verifying each answer: the consume is there under the payment's `out_trade_no`
and the `txnTime` the sandbox recorded, for the order's fen, paid (origRespCode 00) under the
`queryId` the API shows as the payment's transaction id; a refund through the API is UnionPay's
`04` naming that consume (`origQryId`) under the refund's `out_refund_no`; the day's
reconciliation file holds both lines, the refund's `reqReserved` naming the trade and the refund.

stdin: JSON {"api_url", "sandbox_url", "secret_key", "gateway_url", "file_url", "mer_id", "sign_key",
"sign_cert", "root_cert", "middle_cert"}. stdout: one JSON object of what was checked.
"""
import base64
import datetime
import io
import json
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib

from cryptography import x509
from cryptography.hazmat.primitives import serialization

from unionpay_rules import BEIJING, ZM_WIDTHS, parse_raw, sign, verify

config = json.load(sys.stdin)
key = serialization.load_pem_private_key(config["sign_key"].encode(), None)
cert = x509.load_pem_x509_certificate(config["sign_cert"].encode())
root = x509.load_pem_x509_certificate(config["root_cert"].encode())
middle = x509.load_pem_x509_certificate(config["middle_cert"].encode())
mer_id = config["mer_id"]
api = config["api_url"].rstrip("/")
sandbox = config["sandbox_url"].rstrip("/")
summary = {}


def call(method, url, body=None, key_=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    if key_:
        request.add_header("Authorization", "Bearer " + key_)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def merchant(method, path, body=None):
    return call(method, api + path, body, config["secret_key"])


def gateway_call(url, fields):
    body = urllib.parse.urlencode(sign(fields, key, cert)).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"})
    answer = parse_raw(urllib.request.urlopen(request, timeout=30).read().decode("utf-8"))
    assert verify(answer, root, middle), "UnionPay's answer does not verify"
    return answer


def now_beijing():
    return datetime.datetime.now(BEIJING).strftime("%Y%m%d%H%M%S")


def query(order_id, txn_time):
    return gateway_call(config["gateway_url"].rstrip("/") + "/gateway/api/queryTrans.do", {
        "encoding": "UTF-8", "txnType": "00", "txnSubType": "00", "bizType": "000000", "accessType": "0", "merId": mer_id,
        "orderId": order_id, "txnTime": txn_time})


def eventually(check, what, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError("timed out waiting for " + what)


# 1. The backend's order, the app's payment: the answer carries the tn and the plugin's mode.
status, order = merchant("POST", "/v1/orders", {"items": [{"label": "Latte", "amount": "51.00"}], "currency": "CNY"})
assert status == 201, order
status, started = merchant("POST", "/v1/orders/%s/payments" % order["id"],
                           {"method": "unionpay.applepay", "payer_wallets": {"apple_pay_networks": ["ChinaUnionPay"]}})
assert status == 200, started
tn, number = started["unionpay"]["tn"], started["out_trade_no"]
assert tn.isdigit() and started["unionpay"]["mode"] in ("00", "01"), started
summary["mode"] = started["unionpay"]["mode"]

# 2. At UnionPay: the consume under the payment's trade number, at the txnTime the sandbox recorded; not paid yet.
status, books = call("GET", sandbox + "/sandbox/ledger?out_trade_no=" + urllib.parse.quote(number))
consume = [e for e in books["data"] if e["provider"] == "unionpay"][0]
txn_time = consume["sent"]["txnTime"]
assert len(txn_time) == 14 and txn_time.isdigit(), txn_time
assert abs((datetime.datetime.strptime(txn_time, "%Y%m%d%H%M%S").replace(tzinfo=BEIJING)
            - datetime.datetime.now(BEIJING)).total_seconds()) < 600, "txnTime is not Beijing time"
summary["before_payment"] = query(number, txn_time)["respCode"]

# 3. The payer pays the tn (the sandbox stands in for UPAPayPlugin); the server hears it from UnionPay.
status, paid = call("POST", sandbox + "/sandbox/pay", {"provider": "unionpay", "tn": tn, "outcome": "success"})
assert status == 200 and paid["pay_result"] == "success", paid
eventually(lambda: merchant("GET", "/v1/orders/" + order["id"])[1].get("status") == "paid", "the order to be paid")
payment = [p for p in merchant("GET", "/v1/orders/" + order["id"])[1]["payments"] if p["out_trade_no"] == number][0]
answer = query(number, txn_time)
assert answer["respCode"] == "00" and answer["origRespCode"] == "00", answer
assert answer["txnAmt"] == "5100" and answer["currencyCode"] == "156", answer
assert payment["transaction_id"] == answer["queryId"], (payment, answer)
summary["consume"] = answer["origRespCode"]
summary["query_id_matches"] = "yes"

# 4. A refund through the API: UnionPay's 04 under the refund's number, naming the consume.
status, refunded = merchant("POST", "/v1/orders/%s/refunds" % order["id"], {"amount": "20.00"})
assert status == 200, refunded
refund_no = refunded["refund"]["out_refund_no"]
eventually(lambda: [r for r in merchant("GET", "/v1/orders/" + order["id"])[1]["refunds"]
                    if r["out_refund_no"] == refund_no and r["status"] == "succeeded"], "the refund to succeed")
# UnionPay accepts a 04 at once (respCode 00: the server counts it) and settles it a moment later.
def unionpay_entry():
    return [e for e in call("GET", sandbox + "/sandbox/ledger?out_trade_no=" + number)[1]["data"] if e["provider"] == "unionpay"][0]
eventually(lambda: [r for r in unionpay_entry()["refunds"] if r["status"] == "SUCCESS"], "UnionPay to settle the refund")
entry = unionpay_entry()
assert [r["out_refund_no"] for r in entry["refunds"]] == [refund_no] and entry["refunds"][0]["status"] == "SUCCESS", entry
summary["refund"] = "04"

# 5. The day's reconciliation file, read by the reference: both lines, the refund's reqReserved naming trade and refund.
file_answer = gateway_call(config["file_url"], {
    "encoding": "UTF-8", "txnType": "76", "txnSubType": "01", "bizType": "000000", "accessType": "0", "merId": mer_id,
    "settleDate": now_beijing()[4:8], "txnTime": now_beijing(), "fileType": "00"})
assert file_answer["respCode"] == "00", file_answer
archive = zipfile.ZipFile(io.BytesIO(zlib.decompress(base64.b64decode(file_answer["fileContent"]))))
lines = []
for name in archive.namelist():
    if name.startswith("INN") and "ZM_" in name:
        for line in archive.read(name).split(b"\r\n"):
            if line:
                fields, at = [], 0
                for width in ZM_WIDTHS:
                    fields.append(line[at:at + width].decode("gbk").strip())
                    at += width + 1
                lines.append(fields)
assert any(f[11] == number and f[6] == "000000005100" and f[9] == answer["queryId"] and f[19] == "01" for f in lines), lines
refund_lines = [f for f in lines if f[11] == refund_no]
assert len(refund_lines) == 1 and refund_lines[0][19] == "04" and refund_lines[0][26] == answer["queryId"], refund_lines
assert refund_lines[0][6] == "000000002000" and (number + ":" + refund_no).startswith(refund_lines[0][34]), refund_lines
summary["file"] = "both lines"

# 6. The server's reconciliation of the day agrees.
today = datetime.datetime.now(BEIJING).strftime("%Y-%m-%d")
status, report = merchant("GET", "/v1/reconciliations/" + today)
assert status == 200 and not report["discrepancies"], report
summary["reconciliation"] = "no discrepancies"

print(json.dumps(summary))
