"""Writes the hostile-input corpus, one JSON file per case, into Tests/CashierServerTests/Hostile/.

Each case names what it sends and what must come back; HostileCorpusTests fills in the run's
order, keys and signatures, sends it to a real server over a socket, and checks the answer, that
no order changed, and that nothing secret is echoed. Re-run this script after editing it; the
files are the test's fixtures.

Kinds:
  api          method, path ({order} = a paid order's id), auth (secret|publishable|none|wrong), body (text)
  wechat_v2    a payment notification for the paid order: set (field -> value, null deletes), sign
               (valid|wrong_key|none|empty), or raw (the body itself)
  alipay       an async notification for the paid order: set, sign (valid|wrong_key|none|empty), sign_type, or raw
  wechat_v3    a payment notification: headers (name -> value, null deletes; "old"/"future" timestamps), body_override
  wechat_v2_refund  a refund result: req_info (valid|other_key|unknown_order|absent|any text), set, or raw
  applepay     a token for an unpaid order: mint options (amount, signed_at_offset, garbage, other_merchant)
  stripe       a Stripe event: body (text; {number}/{order}/{payment} name the paid order), sign
               (valid|wrong_secret|none|empty|v0_only|stale|garbage), body_override (sent instead, after signing)
  adyen        an Adyen webhook of one item: set (its fields), sign (valid|wrong_key|none|empty),
               tamper_after_sign, or raw (the body itself)
"""
import json
import os
import sys

root = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "CashierServerTests", "Hostile")
cases = []


def case(name, kind, expect, **fields):
    safe = "".join(c if c.isalnum() or c in ".-_" else "_" for c in name)
    cases.append({"name": safe, "kind": kind, "expect": expect, **fields})


def repeat(prefix, unit, times, suffix):
    """A large body kept small in the file: prefix + unit × times + suffix."""
    return {"prefix": prefix, "unit": unit, "times": times, "suffix": suffix}


sql = ["' OR '1'='1", "'; DROP TABLE orders; --", "\" OR 1=1 --", "1; DELETE FROM events", "ord_x' UNION SELECT client_secret FROM orders --",
       "%27%20OR%201%3D1", "\\'; --", "') OR ('a'='a", "admin'--", "1' AND SLEEP(5)--"]
paths = ["../../etc/passwd", "..%2F..%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e%2f", "ord_%00", "ord_" + "A" * 5000, "ord_<script>", "ord_%0d%0aSet-Cookie:x",
         "ord_é", ".", "%"]

# The merchant API.
for i, text in enumerate(sql):
    case(f"api-sql-description-{i}", "api", {"status": 201}, method="POST", path="/v1/orders", auth="secret",
         body=json.dumps({"items": [{"label": "Tea", "amount": "1.00"}], "currency": "CNY", "description": text, "metadata": {"note": text}}))
    case(f"api-sql-item-label-{i}", "api", {"status": 201}, method="POST", path="/v1/orders", auth="secret",
         body=json.dumps({"items": [{"label": text, "amount": "1.00"}], "currency": "CNY"}))
    case(f"api-sql-search-{i}", "api", {"status": 200}, method="GET", path="/v1/orders?out_trade_no=" + json.dumps(text)[1:-1].replace(" ", "%20").replace("#", "%23").replace("&", "%26"), auth="secret")
    case(f"api-sql-idempotency-key-{i}", "api", {"status": 201}, method="POST", path="/v1/orders", auth="secret",
         headers={"Idempotency-Key": text}, body=json.dumps({"items": [{"label": "Tea", "amount": "2.00"}], "currency": "CNY"}))
for i, text in enumerate(paths):
    for endpoint, method in [("", "GET"), ("/events", "GET"), ("/refunds", "POST"), ("/close", "POST"), ("/payments", "POST")]:
        # A dot segment may be resolved away ("/v1/orders/." is the order list, which the secret key may read).
        allowed = [400, 404, 405] + ([200] if text == "." and method == "GET" else [])
        case(f"api-path-{endpoint.strip('/') or 'order'}-{i}", "api", {"status_in": allowed}, method=method,
             path="/v1/orders/" + text + endpoint, auth="secret", body=json.dumps({"method": "wechat.native", "amount": "1.00"}))
bodies = {
    "not-json": "items=1", "truncated": '{"items":[{"label":"Tea","amount":"1.00"}],"curr', "array": "[]", "null": "null",
    "deep": repeat("", "[", 5000, "]" * 5000), "huge-number": '{"items":[{"label":"Tea","amount_minor":1e400}],"currency":"CNY"}',
    "negative": '{"items":[{"label":"Tea","amount":"-1.00"}],"currency":"CNY"}', "zero": '{"items":[{"label":"Tea","amount":"0.00"}],"currency":"CNY"}',
    "three-decimals": '{"items":[{"label":"Tea","amount":"1.005"}],"currency":"CNY"}', "exponent": '{"items":[{"label":"Tea","amount":"1e3"}],"currency":"CNY"}',
    "float-minor": '{"items":[{"label":"Tea","amount_minor":12.5}],"currency":"CNY"}', "both": '{"items":[{"label":"Tea","amount":"1.00","amount_minor":100}],"currency":"CNY"}',
    "unknown-currency": '{"items":[{"label":"Tea","amount":"1.00"}],"currency":"XXX1"}', "no-items": '{"items":[],"currency":"CNY"}',
    "no-currency": '{"items":[{"label":"Tea","amount":"1.00"}]}', "quantity-zero": '{"items":[{"label":"Tea","amount":"1.00","quantity":0}],"currency":"CNY"}',
    "quantity-negative": '{"items":[{"label":"Tea","amount":"1.00","quantity":-3}],"currency":"CNY"}',
    "quantity-overflow": '{"items":[{"label":"Tea","amount_minor":9223372036854775807,"quantity":2}],"currency":"CNY"}',
    "empty-label": '{"items":[{"label":"","amount":"1.00"}],"currency":"CNY"}', "amount-as-number": '{"items":[{"label":"Tea","amount":1.00}],"currency":"CNY"}',
    "expires-negative": '{"items":[{"label":"Tea","amount":"1.00"}],"currency":"CNY","expires_in":-5}',
    "nul-in-label": '{"items":[{"label":"Te\\u0000a","amount":"1.00"}],"currency":"CNY"}',
}
# A body of the right shape whose values break a rule is 422 (unprocessable); one of the wrong shape is 400.
unprocessable = ("empty-label", "negative", "no-currency", "three-decimals", "zero")
for name, body in bodies.items():
    status = ({"status_in": [201, 400]} if name in ("nul-in-label", "expires-negative")
              else {"status_in": [422, 403]} if name in unprocessable else {"status_in": [400, 403]})
    case(f"api-create-{name}", "api", status, method="POST", path="/v1/orders", auth="secret", body=body)
# Past the server's 3 MiB body limit (room for a complaint image of 2 MB, base64).
case("api-create-oversize", "api", {"status": 413}, method="POST", path="/v1/orders", auth="secret",
     body=repeat('{"items":[', '{"label":"x","amount":"1.00"},', 120000, "]}"))
case("api-create-non-utf8", "api", {"status": 400}, method="POST", path="/v1/orders", auth="secret", body_base64="eyJpdGVtcyI6W3sibGFiZWwiOiL/AP4iLCJhbW91bnQiOiIxLjAwIn1dLCJjdXJyZW5jeSI6IkNOWSJ9")
for auth in ["none", "wrong", "publishable"]:
    for method, path in [("GET", "/v1/orders"), ("POST", "/v1/orders/{order}/refunds"), ("POST", "/v1/orders/{order}/close"), ("GET", "/v1/orders/{order}/events"),
                         ("GET", "/v1/reconciliations/2026-11-29")]:
        case(f"api-auth-{auth}-{method.lower()}-{path.strip('/').replace('/', '-').replace('{', '').replace('}', '')}", "api",
             {"status_in": [401, 403, 404]}, method=method, path=path, auth=auth, body=json.dumps({"amount": "1.00"}))
for name, amount in [("over", "100.00"), ("negative", "-1.00"), ("zero", "0"), ("garbage", "1,00"), ("three-decimals", "0.001"), ("minor-huge", None)]:
    body = {"amount": amount} if amount else {"amount_minor": 10 ** 30}
    status = [409] if name == "over" else [422] if name in ("negative", "zero", "three-decimals") else [400]
    case(f"api-refund-{name}", "api", {"status_in": status}, method="POST", path="/v1/orders/{order}/refunds", auth="secret", body=json.dumps(body))
for method_name in ["wechat.unknown", "", "alipay.wap", "wechat.jsapi", "applepay.ec", "../wechat.app"]:
    # A method this server offers but not configured here is 422; one that does not exist, 400.
    status = [422, 409] if method_name in ("alipay.wap", "wechat.jsapi") else [400, 409]
    case(f"api-payment-method-{method_name or 'empty'}", "api", {"status_in": status}, method="POST", path="/v1/orders/{unpaid}/payments",
         auth="secret", body=json.dumps({"method": method_name}))

# WeChat Pay v2 notifications (the paid order; a refused one must not move it or anything else).
xxe = '<?xml version="1.0"?><!DOCTYPE xml [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><xml><return_code>&xxe;</return_code></xml>'
laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' \
         '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><xml><return_code>&lol3;</return_code></xml>'
raw_v2 = {"xxe": xxe, "billion-laughs": laughs, "external-dtd": '<!DOCTYPE xml SYSTEM "http://127.0.0.1:9/x.dtd"><xml><a>1</a></xml>',
          "deep": repeat("<xml>", "<a>", 5000, "</a>" * 5000 + "</xml>"), "truncated": "<xml><return_code>SUCCESS</return_code><out_trade_no>",
          "not-xml": '{"return_code":"SUCCESS"}', "empty": "", "processing-instruction": "<?php echo 1; ?><xml></xml>",
          "cdata-open": "<xml><a><![CDATA[x</a></xml>", "two-roots": "<xml></xml><xml></xml>", "comment-bomb": repeat("<xml><!--", "-", 100000, "--></xml>"),
          "oversize": repeat("<xml>", "<a>x</a>", 20000, "</xml>")}
for name, body in raw_v2.items():
    # No body is no notification (400, in JSON); anything else is answered FAIL.
    case(f"wechat-v2-raw-{name}", "wechat_v2", {"status": 400} if not body else {"reply_contains": "FAIL"}, raw=body)
case("wechat-v2-non-utf8", "wechat_v2", {"reply_contains": "FAIL"}, raw_base64="PHhtbD48cmV0dXJuX2NvZGU+/wD+PC9yZXR1cm5fY29kZT48L3htbD4=")
for field in ["appid", "mch_id", "out_trade_no", "total_fee", "result_code", "return_code", "sign"]:
    case(f"wechat-v2-missing-{field}", "wechat_v2", {"reply_contains": "FAIL"}, set={field: None}, sign="valid" if field != "sign" else "none")
# Signed without a nonce: the signature still covers everything else; a duplicate, acknowledged, nothing moves.
case("wechat-v2-missing-nonce_str", "wechat_v2", {"reply_contains": "SUCCESS"}, set={"nonce_str": None}, sign="valid")
for field, value in [("total_fee", "1"), ("total_fee", "5099"), ("total_fee", "-5100"), ("total_fee", "5100.0"), ("fee_type", "USD"),
                     ("appid", "wx0000000000000000"), ("mch_id", "1999999999"), ("out_trade_no", "C20200101000000UNKNOWN0000"),
                     ("out_trade_no", "' OR '1'='1"), ("total_fee", "99999999999999999999")]:
    slug = "".join(c if c.isalnum() or c in ".-" else "_" for c in value[:12])
    case(f"wechat-v2-tampered-{field}-{slug}", "wechat_v2", {"reply_contains": "FAIL"}, set={field: value}, sign="valid")
for mode in ["wrong_key", "empty", "none"]:
    case(f"wechat-v2-sign-{mode}", "wechat_v2", {"reply_contains": "FAIL"}, sign=mode)
case("wechat-v2-signed-then-tampered", "wechat_v2", {"reply_contains": "FAIL"}, sign="valid", tamper_after_sign={"total_fee": "1"})
case("wechat-v2-sign-type-games", "wechat_v2", {"reply_contains": "FAIL"}, set={"sign_type": "NONE"}, sign="valid")
case("wechat-v2-duplicate-total-fee", "wechat_v2", {"reply_contains": "FAIL"}, sign="valid", duplicate={"total_fee": "1"})

# WeChat Pay v2 refund results (req_info is AES-256-ECB under MD5 of the API key).
for name, body in {"xxe": xxe, "billion-laughs": laughs, "not-xml": "refund", "empty": ""}.items():
    case(f"wechat-v2-refund-raw-{name}", "wechat_v2_refund", {"status": 400} if not body else {"reply_contains": "FAIL"}, raw=body)
for name, req_info in {"garbage": "garbage", "not-base64": "%%%%", "other-key": "other_key", "missing": "absent", "empty": ""}.items():
    case(f"wechat-v2-refund-req-info-{name}", "wechat_v2_refund", {"reply_contains": "FAIL"}, req_info=req_info)
case("wechat-v2-refund-other-appid", "wechat_v2_refund", {"reply_contains": "FAIL"}, req_info="valid", set={"appid": "wx0000000000000000"})
case("wechat-v2-refund-unknown-order", "wechat_v2_refund", {"reply_contains": "FAIL"}, req_info="unknown_order")

# Alipay notifications.
for field in ["out_trade_no", "total_amount", "app_id", "trade_status", "sign", "trade_no"]:
    case(f"alipay-missing-{field}", "alipay", {"reply": "failure"}, set={field: None}, sign="valid" if field not in ("sign",) else "none")
# Genuinely signed, nothing to move (the order is paid): acknowledged as a duplicate or a non-payment, nothing changes.
case("alipay-missing-sign_type", "alipay", {"reply": "success"}, set={"sign_type": None}, sign="valid")  # RSA2 is the default
case("alipay-same-amount-written-51", "alipay", {"reply": "success"}, set={"total_amount": "51"}, sign="valid")
case("alipay-status-with-trailing-space", "alipay", {"reply": "success"}, set={"trade_status": "TRADE_SUCCESS "}, sign="valid")
for field, value in [("total_amount", "51.01"), ("total_amount", "0.01"), ("total_amount", "-51.00"), ("total_amount", "5.1e1"),
                     ("app_id", "2021000000009999"), ("seller_id", "2088999999999999"), ("out_trade_no", "C20200101000000UNKNOWN0000"),
                     ("out_trade_no", "'; DROP TABLE orders; --"), ("total_amount", "51.001"), ("trade_status", "")]:
    slug = "".join(c if c.isalnum() or c in ".-" else "_" for c in value[:10])
    case(f"alipay-tampered-{field}-{slug}", "alipay", {"reply": "failure"}, set={field: value}, sign="valid")
for mode in ["wrong_key", "empty", "none"]:
    case(f"alipay-sign-{mode}", "alipay", {"reply": "failure"}, sign=mode)
for sign_type in ["RSA", "", "rsa2", "RSA2 ", "MD5", "HMAC-SHA256", "RSA2\u0000"]:
    case(f"alipay-sign-type-{sign_type.strip().lower() or 'empty'}-{len(sign_type)}", "alipay", {"reply": "failure"}, sign="valid", sign_type=sign_type)
case("alipay-signed-then-tampered", "alipay", {"reply": "failure"}, sign="valid", tamper_after_sign={"total_amount": "0.01"})
case("alipay-duplicate-amount", "alipay", {"reply": "failure"}, sign="valid", duplicate={"total_amount": "0.01"})
for name, body in {"empty": "", "garbage": "%%%%%", "non-form": '{"trade_status":"TRADE_SUCCESS"}', "oversize": repeat("a=", "b", 200000, ""),
                   "many-fields": repeat("", "f=v&", 5000, "x=1"), "bad-percent": "sign=%zz&out_trade_no=%"}.items():
    # No body: 400; a body that does not verify: `failure` with 401 (413 when too large to read).
    case(f"alipay-raw-{name}", "alipay", {"status": 400} if not body else {"reply_in": ["failure"], "status_in": [401, 413]}, raw=body)
case("alipay-non-utf8", "alipay", {"reply_in": ["failure"]}, raw_base64="dG90YWxfYW1vdW50Pf8A/iZzaWduPXg=")

# WeChat Pay v3 notifications.
for name, headers in {"old-timestamp": {"Wechatpay-Timestamp": "old"}, "future-timestamp": {"Wechatpay-Timestamp": "future"},
                      "unknown-serial": {"Wechatpay-Serial": "0123456789ABCDEF"}, "empty-signature": {"Wechatpay-Signature": ""},
                      "garbage-signature": {"Wechatpay-Signature": "bm90IGEgc2lnbmF0dXJl"}, "no-signature": {"Wechatpay-Signature": None},
                      "no-serial": {"Wechatpay-Serial": None}, "no-timestamp": {"Wechatpay-Timestamp": None}, "no-nonce": {"Wechatpay-Nonce": None},
                      "timestamp-text": {"Wechatpay-Timestamp": "yesterday"}}.items():
    case(f"wechat-v3-{name}", "wechat_v3", {"status": 401}, headers=headers)
case("wechat-v3-tampered-body", "wechat_v3", {"status": 401}, body_override='{"id":"x","event_type":"TRANSACTION.SUCCESS"}')
case("wechat-v3-forged-by-other-key", "wechat_v3", {"status": 401}, forge=True)

# Apple Pay tokens for an unpaid order.
for name, options in {"other-amount": {"amount": "45.99"}, "expired": {"signed_at_offset": -3600}, "future": {"signed_at_offset": 3600},
                      "garbage": {"garbage": True}, "other-order": {"application_data": "6f72645f6f74686572"}, "empty-token": {"empty": True},
                      "other-merchant": {"other_merchant": True}}.items():
    case(f"applepay-{name}", "applepay", {"authorized": False}, **options)

# Stripe's webhook events (Apple Pay through Stripe): the Stripe-Signature header is verified
# before anything is read. {number}, {order} and {payment} are the paid order's trade number, id
# and its WeChat payment's id: events that name them must not move that order.
def stripe_event(kind, type_, **object_fields):
    obj = {"id": "re_hostile" if kind == "refund" else "obj_hostile", "object": kind, "livemode": False, **object_fields}
    return json.dumps({"id": "evt_hostile", "object": "event", "type": type_, "livemode": False, "created": 1764800000,
                       "data": {"object": obj}})


stripe_refund = stripe_event("refund", "refund.created", amount=5100, currency="cny", status="succeeded", payment_intent="pi_hostile",
                             metadata={})
for name, sign in {"wrong-secret": "wrong_secret", "no-header": "none", "empty-header": "empty", "v0-only": "v0_only",
                   "stale": "stale", "garbage-header": "garbage"}.items():
    # A header that is not t=…,v1=…: 400; a signature that does not verify, or too old: 401.
    case(f"stripe-{name}", "stripe", {"status": 401 if sign in ("wrong_secret", "stale") else 400}, body=stripe_refund, sign=sign)
case("stripe-tampered-amount", "stripe", {"status": 401}, body=stripe_refund, sign="valid",
     body_override=stripe_refund.replace("5100", "1"))
# Signed, but not an event Cashier can read: refused as such.
for name, text in {"empty": "", "not-json": "refund", "array": "[]", "null": "null", "deep": repeat("", "[", 5000, "]" * 5000),
                   "no-object": '{"id":"evt_1","object":"event","type":"refund.created"}', "object-not-object": '{"id":"evt_1","type":"refund.created","data":{"object":7}}'}.items():
    case(f"stripe-signed-{name}", "stripe", {"status": 400}, body=text, sign="valid")
# Signed and well formed, about nothing Cashier holds or naming the WeChat order's numbers: acknowledged, nothing moves.
for name, text in {
    "refund-unknown-intent": stripe_refund,
    "refund-cashier-key-of-wechat-order": stripe_event("refund", "refund.updated", amount=5100, currency="cny", status="failed",
                                                      payment_intent="{number}", metadata={"cashier_refund": "cashier_{number}_refund"}),
    "dispute-naming-order": stripe_event("dispute", "charge.dispute.funds_withdrawn", amount=5100, currency="cny", payment_intent="{number}",
                                         status="needs_response"),
    "canceled-naming-order": stripe_event("payment_intent", "payment_intent.canceled", id="{number}", amount=5100, currency="cny",
                                          status="canceled", cancellation_reason="automatic", metadata={"cashier_payment": "{number}"}),
    "canceled-naming-payment": stripe_event("payment_intent", "payment_intent.canceled", id="{payment}", amount=5100, currency="cny",
                                            status="canceled", metadata={"cashier_payment": "{payment}"}),
    "negative-refund": stripe_event("refund", "refund.created", amount=-5100, currency="cny", status="succeeded",
                                    payment_intent="{number}", metadata={}),
    "unknown-type": stripe_event("customer", "customer.created"),
}.items():
    case(f"stripe-signed-{name}", "stripe", {"status": 200, "reply_contains": '"received"'}, body=text, sign="valid")

# Adyen's standard webhooks: every item's HMAC is verified before any is read. Items are built from
# `set` ({number}, {order}, {payment} as above) and signed; `tamper_after_sign` changes them after.
adyen_refund = {"eventCode": "REFUND", "success": "true", "pspReference": "MODHOSTILE000001", "originalReference": "{payment}",
                "merchantReference": "{number}", "value": "5100", "currency": "CNY"}
for name, sign in {"wrong-key": "wrong_key", "no-signature": "none", "empty-signature": "empty"}.items():
    case(f"adyen-{name}", "adyen", {"status": 401}, set=adyen_refund, sign=sign)
for name, tamper in {"tampered-amount": {"value": "1"}, "tampered-event": {"eventCode": "CHARGEBACK"},
                     "tampered-reference": {"originalReference": "PSPOTHER0000001"}}.items():
    case(f"adyen-{name}", "adyen", {"status": 401}, set=adyen_refund, sign="valid", tamper_after_sign=tamper)
case("adyen-signed-huge-amount", "adyen", {"status": 401, "reply_contains": "not minor units"}, set={**adyen_refund, "value": "9223372036854775807"},
     sign="valid")
for name, text in {"empty": "", "garbage": "[accepted]", "array": "[]", "no-items": '{"live":"false"}',
                   "items-not-array": '{"live":"false","notificationItems":{}}', "deep": repeat("", "[", 5000, "]" * 5000),
                   "unsigned-item": '{"live":"false","notificationItems":[{"NotificationRequestItem":{"eventCode":"REFUND","success":"true","pspReference":"M","merchantAccountCode":"C","merchantReference":"R"}}]}'}.items():
    case(f"adyen-raw-{name}", "adyen", {"status": 401 if text else 400}, raw=text)
# Verified, naming the WeChat order or its payment every way Adyen's items name an Apple Pay payment: accepted, nothing moves.
for name, fields in {
    "refund-by-payment-id": adyen_refund,
    "refund-by-trade-number": {**adyen_refund, "originalReference": "{number}"},
    "refund-by-order-id": {**adyen_refund, "originalReference": "{order}"},
    "refund-failed": {**adyen_refund, "eventCode": "REFUND_FAILED"},
    "chargeback": {**adyen_refund, "eventCode": "CHARGEBACK", "pspReference": "DSPHOSTILE000001"},
    "expire": {**adyen_refund, "eventCode": "EXPIRE"},
    "cancellation": {**adyen_refund, "eventCode": "CANCELLATION", "originalReference": "{number}"},
    "capture-cashier-key": {**adyen_refund, "eventCode": "CAPTURE", "merchantReference": "cashier_{payment}_capture"},
    "capture-failed": {**adyen_refund, "eventCode": "CAPTURE_FAILED", "merchantReference": "cashier_{payment}_capture"},
    "unknown-event": {**adyen_refund, "eventCode": "REPORT_AVAILABLE"},
}.items():
    case(f"adyen-signed-{name}", "adyen", {"status": 200, "reply": "[accepted]"}, set=fields, sign="valid")

os.makedirs(root, exist_ok=True)
for old in os.listdir(root):
    if old.endswith(".json"):
        os.remove(os.path.join(root, old))
names = set()
for item in cases:
    assert item["name"] not in names, item["name"]
    names.add(item["name"])
    with open(os.path.join(root, item["name"] + ".json"), "w", encoding="utf-8") as handle:
        json.dump(item, handle, ensure_ascii=False, indent=1)
print(f"{len(cases)} cases", file=sys.stderr)
