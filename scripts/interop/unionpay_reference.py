"""An independent reference client for UnionPay's online gateway (全渠道, version 5.1.0), run
against Cashier's UnionPay sandbox by CashierSandboxTests (UnionPayReferenceInteropTests).

Written from the published rules alone — UnionPay's product specification part 5 (手机控件支付,
Q/CUP 071.2.5), its PHP/Java/Python demo SDKs as summarised in the research note — using only
Python's standard library and `cryptography`; nothing here is shared with the Swift code.

stdin: JSON {"gateway", "file_url", "payer", "mer_id", "sign_key", "sign_cert", "root_cert",
"middle_cert", "prefix", "vector": {fields to sign for the known-answer cross-check}}.
stdout: one JSON object summarising what was checked (the Swift test asserts on it).
Any rule the sandbox breaks fails an assert here.
"""
import base64
import datetime
import hashlib
import io
import json
import sys
import time
import urllib.parse
import urllib.request
import zipfile
import zlib

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.x509.oid import NameOID

from sandbox_helpers import start_receiver
from unionpay_rules import BEIJING, ZM_WIDTHS, check_chain, owner, parse_raw, sign, signing_string, verify  # noqa: F401

# --- Talking to the gateway --------------------------------------------------------------------

config = json.load(sys.stdin)
key = serialization.load_pem_private_key(config["sign_key"].encode(), None)
cert = x509.load_pem_x509_certificate(config["sign_cert"].encode())
root = x509.load_pem_x509_certificate(config["root_cert"].encode())
middle = x509.load_pem_x509_certificate(config["middle_cert"].encode())
mer_id = config["mer_id"]
summary = {}


def now_beijing():
    return datetime.datetime.now(BEIJING).strftime("%Y%m%d%H%M%S")


def post(url, fields):
    body = urllib.parse.urlencode(sign(fields, key, cert)).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/x-www-form-urlencoded;charset=UTF-8"})
    text = urllib.request.urlopen(request).read().decode("utf-8")
    answer = parse_raw(text)
    assert verify(answer, root, middle), "the gateway's answer does not verify: " + text[:200]
    for echoed in ("merId", "orderId", "txnTime"):
        if echoed in fields and echoed in answer:
            assert answer[echoed] == fields[echoed], "the answer is for another request"
    return answer, text


def gateway(path):
    return config["gateway"].rstrip("/") + "/gateway/api/" + path


def query(order_id, txn_time, wait=True):
    """queryTrans.do: respCode is the query's; origRespCode the transaction's (03/04/05: ask again)."""
    for _ in range(200):
        answer, _ = post(gateway("queryTrans.do"), {
            "encoding": "UTF-8", "txnType": "00", "txnSubType": "00", "bizType": "000000", "accessType": "0",
            "merId": mer_id, "orderId": order_id, "txnTime": txn_time})
        state = answer["origRespCode"] if answer["respCode"] == "00" else answer["respCode"]
        if not wait or state not in ("03", "04", "05"):
            return answer
        time.sleep(0.05)
    raise AssertionError("still in process")


# Known answer: the Swift test compares this with UnionPay.Signer's signature of the same fields.
summary["vector_signature"] = sign(config["vector"], key, cert)["signature"]
summary["vector_cert_id"] = str(cert.serial_number)


def read_notification(headers, body):
    fields = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode("utf-8"), keep_blank_values=True).items()}
    fields = {k: v for k, v in fields.items() if v != ""}
    return verify(fields, root, middle), fields


back_url, notifications = start_receiver(read_notification, reply=b"ok")


def wait_notifications(count):
    deadline = time.time() + 30
    while len(notifications) < count and time.time() < deadline:
        time.sleep(0.01)
    assert len(notifications) >= count, "notification %d did not arrive" % count
    return notifications[count - 1]


# 1. Consume (手机控件: txnType 01, channelType 08, fen, Beijing time) → tn.
order_id, txn_time = config["prefix"] + "P", now_beijing()
consume, raw = post(gateway("appTransReq.do"), {
    "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000201", "channelType": "08", "accessType": "0",
    "merId": mer_id, "orderId": order_id, "txnTime": txn_time, "txnAmt": "1200", "currencyCode": "156", "backUrl": back_url,
    "reqReserved": "{order=7&note=a}", "orderDesc": "两杯拿铁"})
assert consume["respCode"] == "00", consume
tn = consume["tn"].strip()
assert tn.isdigit(), tn
assert "\r\n" in consume["signPubKeyCert"], "signPubKeyCert should keep its CRLF lines"
assert consume["reqReserved"] == "{order=7&note=a}", "braces should protect '&' in the raw answer"
summary["tn"] = tn
# The answer is raw: URL-decoding it (as a naive client would) breaks the signature.
decoded = {k: v[0] for k, v in urllib.parse.parse_qs(raw, keep_blank_values=True).items()}
summary["url_decoded_answer"] = "verifies" if verify(decoded, root, middle) else "refused"
# Tampered, wrong root, wrong owner: refused by the reference too.
# Another first digit (a tn that already began with 1 was left as it was: a tamper that changed nothing).
tampered_tn = ("2" if tn[0] == "1" else "1") + tn[1:]
summary["tampered_answer"] = "verifies" if verify(dict(consume, tn=tampered_tn), root, middle) else "refused"
summary["wrong_root"] = "verifies" if verify(consume, middle, middle) else "refused"
summary["expired_clock"] = "verifies" if verify(consume, root, middle, datetime.datetime(2100, 1, 1, tzinfo=datetime.timezone.utc)) else "refused"

# A second consume with the same orderId and txnTime: 重复交易.
duplicate, _ = post(gateway("appTransReq.do"), {
    "encoding": "UTF-8", "txnType": "01", "txnSubType": "01", "bizType": "000201", "channelType": "08", "accessType": "0",
    "merId": mer_id, "orderId": order_id, "txnTime": txn_time, "txnAmt": "1200", "currencyCode": "156", "backUrl": back_url})
summary["duplicate"] = duplicate["respCode"]
# Before payment: no such transaction yet.
summary["query_before_payment"] = query(order_id, txn_time, wait=False)["respCode"]

# 2. The payer pays the tn (the sandbox's stand-in for UPAPayPlugin / UPPaymentControl).
payment = urllib.request.Request(config["payer"], data=json.dumps({"provider": "unionpay", "tn": tn, "outcome": "success"}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
summary["pay_result"] = json.load(urllib.request.urlopen(payment))["pay_result"]

# 3. The back notification: form-encoded, verified with the certificate it carries.
verified, notification = wait_notifications(1)
assert verified, "the back notification does not verify"
assert notification["orderId"] == order_id and notification["txnAmt"] == "1200" and notification["respCode"] in ("00", "A6")
assert notification["merId"] == mer_id and notification["currencyCode"] == "156"
summary["notification"] = "verified"
query_id = notification["queryId"]

# 4. Query: the transaction succeeded, under the notified queryId.
paid = query(order_id, txn_time)
assert paid["respCode"] == "00" and paid["origRespCode"] == "00" and paid["queryId"] == query_id, paid
summary["query"] = paid["origRespCode"]

# 5. Refund (04) and an over-refund, naming the consume's queryId; the refund's own orderId/txnTime.
refund_id, refund_time = config["prefix"] + "R1", now_beijing()
refund, _ = post(gateway("backTransReq.do"), {
    "encoding": "UTF-8", "txnType": "04", "txnSubType": "00", "bizType": "000201", "channelType": "07", "accessType": "0",
    "merId": mer_id, "orderId": refund_id, "txnTime": refund_time, "origQryId": query_id, "txnAmt": "500",
    "currencyCode": "156", "backUrl": back_url})
assert refund["respCode"] == "00", refund
too_much, _ = post(gateway("backTransReq.do"), {
    "encoding": "UTF-8", "txnType": "04", "txnSubType": "00", "bizType": "000201", "channelType": "07", "accessType": "0",
    "merId": mer_id, "orderId": config["prefix"] + "R2", "txnTime": now_beijing(), "origQryId": query_id, "txnAmt": "701",
    "currencyCode": "156", "backUrl": back_url})
summary["over_refund"] = too_much["respCode"]
refunded = query(refund_id, refund_time)
assert refunded["origRespCode"] == "00" and refunded["origQryId"] == query_id, refunded
summary["refund"] = refunded["origRespCode"]
verified, refund_notification = wait_notifications(2)
assert verified and refund_notification["txnType"] == "04" and refund_notification["origQryId"] == query_id
summary["refund_notification"] = refund_notification["orderId"]

# 6. The reconciliation file, from the file-download host: base64 → zlib → zip → ZM lines + GBK summary.
settle_date = notification["settleDate"]
answer, _ = post(config["file_url"], {
    "encoding": "UTF-8", "txnType": "76", "txnSubType": "01", "bizType": "000000", "accessType": "0", "merId": mer_id,
    "settleDate": settle_date, "txnTime": now_beijing(), "fileType": "00"})
assert answer["respCode"] == "00", answer
archive = zipfile.ZipFile(io.BytesIO(zlib.decompress(base64.b64decode(answer["fileContent"]))))
lines = []
for name in archive.namelist():
    data = archive.read(name)
    if name.startswith("INN") and "ZM_" in name:
        for line in data.split(b"\r\n"):
            if not line:
                continue
            assert len(line) == sum(ZM_WIDTHS) + len(ZM_WIDTHS) - 1, len(line)
            fields, at = [], 0
            for width in ZM_WIDTHS:
                fields.append(line[at:at + width].decode("gbk").strip())
                at += width + 1
            lines.append(fields)
    elif name.startswith("RD"):
        summary["file_summary"] = "gbk" if "汇总" in data.decode("gbk") else "unreadable"
mine = [f for f in lines if f[11] in (order_id, refund_id)]
assert any(f[11] == order_id and f[6] == "000000001200" and f[9] == query_id and f[19] == "01" for f in mine), mine
assert any(f[11] == refund_id and f[6] == "000000000500" and f[26] == query_id and f[19] == "04" for f in mine), mine
summary["file_lines"] = str(len(mine))
summary["file_name"] = answer["fileName"]

print(json.dumps(summary, ensure_ascii=False))
