"""The official alipay-sdk-python (Ant Group, PyPI) against Cashier's Alipay sandbox (run by CashierSandboxTests).

It installs a top-level `alipay` package, as python-alipay-sdk does, so it lives in its own
virtualenv: `scripts/python-env alipay-official`.

stdin: JSON {"gateway", "payer", "app_id", "app_private_key", "alipay_public_key",
"wrong_alipay_public_key", "prefix"}, the
keys as the Alipay console gives them (bare base64: PKCS#1 private, SubjectPublicKeyInfo public).
Places a QR trade through DefaultAlipayClient (its request signed by it and verified by the sandbox,
the sandbox's answer verified by it over the raw response node), pays it through the payer API,
checks the notification with its SignatureUtils, queries it as paid, opens the wap-pay cashier
URL it builds, and refuses an answer when configured with the wrong Alipay key.
"""
import json
import sys
import urllib.parse
import urllib.request
import http.client

from alipay.aop.api.AlipayClientConfig import AlipayClientConfig
from alipay.aop.api.DefaultAlipayClient import DefaultAlipayClient
from alipay.aop.api.domain.AlipayTradePrecreateModel import AlipayTradePrecreateModel
from alipay.aop.api.domain.AlipayTradeQueryModel import AlipayTradeQueryModel
from alipay.aop.api.domain.AlipayTradeWapPayModel import AlipayTradeWapPayModel
from alipay.aop.api.request.AlipayTradePrecreateRequest import AlipayTradePrecreateRequest
from alipay.aop.api.request.AlipayTradeQueryRequest import AlipayTradeQueryRequest
from alipay.aop.api.request.AlipayTradeWapPayRequest import AlipayTradeWapPayRequest
from alipay.aop.api.response.AlipayTradePrecreateResponse import AlipayTradePrecreateResponse
from alipay.aop.api.response.AlipayTradeQueryResponse import AlipayTradeQueryResponse
from alipay.aop.api.util import WebUtils
from alipay.aop.api.util.SignatureUtils import get_sign_content, verify_with_rsa

from sandbox_helpers import pay, start_receiver, wait_for


def get_http_connection(url, query_string, timeout):
    """The SDK's own version connects to port 80 (443 for https) whatever the URL says, and fails
    on a URL with a port (it adds an int to a str). The sandbox listens on a free port, so this
    one keeps the port; everything else is as the SDK does it."""
    parsed = urllib.parse.urlparse(url)
    connection_type = http.client.HTTPSConnection if parsed.scheme == "https" else http.client.HTTPConnection
    connection = connection_type(host=parsed.hostname, port=parsed.port, timeout=timeout)
    return "%s://%s:%d%s?%s" % (parsed.scheme, parsed.hostname, parsed.port, parsed.path, query_string), connection


WebUtils.get_http_connection = get_http_connection

config = json.load(sys.stdin)


def make_client(alipay_public_key):
    client_config = AlipayClientConfig()
    client_config.server_url = config["gateway"]
    client_config.app_id = config["app_id"]
    client_config.app_private_key = config["app_private_key"]
    client_config.alipay_public_key = alipay_public_key
    client_config.sign_type = "RSA2"
    return DefaultAlipayClient(alipay_client_config=client_config)


client = make_client(config["alipay_public_key"])


def verify_notification(headers, body):
    data = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode(), keep_blank_values=True).items()}
    signature = data.pop("sign")
    data.pop("sign_type", None)
    content = get_sign_content({k: v for k, v in data.items() if v != ""})
    return verify_with_rsa(config["alipay_public_key"], content.encode("utf-8"), signature), data


notify_url, received = start_receiver(verify_notification, reply=b"success")
number = config["prefix"] + "O"

model = AlipayTradePrecreateModel()
model.out_trade_no = number
model.total_amount = "1.23"
model.subject = "official SDK interop"
request = AlipayTradePrecreateRequest(biz_model=model)
request.notify_url = notify_url
response = AlipayTradePrecreateResponse()
response.parse_response_content(client.execute(request))  # raises if the sandbox's signature fails
assert response.is_success(), (response.code, response.msg, response.sub_code)
assert response.out_trade_no == number and response.qr_code.startswith("https://"), response.qr_code

assert pay(config["payer"], "alipay", number)["trade_state"] == "TRADE_SUCCESS"
assert wait_for(received), "no notification arrived"
verified, notification = received[0]
assert verified, "alipay-sdk-python's verify_with_rsa refused the sandbox's notification"
assert notification["out_trade_no"] == number and notification["total_amount"] == "1.23", notification

query_model = AlipayTradeQueryModel()
query_model.out_trade_no = number
query = AlipayTradeQueryResponse()
query.parse_response_content(client.execute(AlipayTradeQueryRequest(biz_model=query_model)))
assert query.is_success() and query.trade_status == "TRADE_SUCCESS", (query.code, query.trade_status)

missing_model = AlipayTradeQueryModel()
missing_model.out_trade_no = config["prefix"] + "NONE"
missing = AlipayTradeQueryResponse()
missing.parse_response_content(client.execute(AlipayTradeQueryRequest(biz_model=missing_model)))
assert not missing.is_success() and missing.sub_code == "ACQ.TRADE_NOT_EXIST", missing.sub_code

wap_model = AlipayTradeWapPayModel()
wap_model.out_trade_no = config["prefix"] + "W"
wap_model.total_amount = "0.50"
wap_model.subject = "wap"
wap_model.product_code = "QUICK_WAP_WAY"
wap = AlipayTradeWapPayRequest(biz_model=wap_model)
wap.return_url = "https://shop.example/return"
url = client.page_execute(wap, http_method="GET")
page = urllib.request.urlopen(url).read().decode()
assert "0.50" in page and "action" in page, page[:300]

# Negative: a client holding the wrong Alipay public key must refuse the sandbox's signed answer.
from alipay.aop.api.exception.Exception import ResponseException  # noqa: E402

try:
    make_client(config["wrong_alipay_public_key"]).execute(AlipayTradeQueryRequest(biz_model=query_model))
    raise AssertionError("a response verified under the wrong Alipay key")
except ResponseException as error:
    assert "sign verify failed" in str(error), error

print(json.dumps({"trade_no": query.trade_no, "notification": notification["trade_no"], "wap": "cashier"}))
