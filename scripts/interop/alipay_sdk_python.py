"""The official alipay-sdk-python (Ant Group, PyPI) against Cashier's Alipay sandbox (run by CashierSandboxTests).

It installs a top-level `alipay` package, as python-alipay-sdk does, so it lives in its own
virtualenv: `scripts/python-env alipay-official`.

stdin: JSON {"gateway", "payer", "app_id", "app_private_key", "alipay_public_key",
"wrong_alipay_public_key", "prefix"}, the
keys as the Alipay console gives them (bare base64: PKCS#1 private, SubjectPublicKeyInfo public).
Places a QR trade through DefaultAlipayClient (its request signed by it and verified by the sandbox,
the sandbox's answer verified by it over the raw response node), pays it through the payer API,
checks the notification with its SignatureUtils, queries it as paid, opens the wap-pay cashier
URL it builds, and refuses an answer when configured with the wrong Alipay key. Then agreements
(周期扣款): the app's sign string from sdk_execute(AlipayUserAgreementPageSignRequest), signed through the
payer's JSON call, dut_user_sign checked with its SignatureUtils, AlipayTradePayRequest with
agreement_params (paid once in the period, ACQ.CYCLE_PAY_DATE_NOT_MATCH for a second),
AlipayUserAgreementQueryRequest and AlipayUserAgreementUnsignRequest.
"""
import datetime
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

from sandbox_helpers import control, pay, start_receiver, wait_for


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

# Agreements: the app's sign string, a charge under it, its query and unsign.
from alipay.aop.api.domain.AccessParams import AccessParams  # noqa: E402
from alipay.aop.api.domain.AgreementParams import AgreementParams  # noqa: E402
from alipay.aop.api.domain.AlipayTradePayModel import AlipayTradePayModel  # noqa: E402
from alipay.aop.api.domain.AlipayUserAgreementPageSignModel import AlipayUserAgreementPageSignModel  # noqa: E402
from alipay.aop.api.domain.AlipayUserAgreementQueryModel import AlipayUserAgreementQueryModel  # noqa: E402
from alipay.aop.api.domain.AlipayUserAgreementUnsignModel import AlipayUserAgreementUnsignModel  # noqa: E402
from alipay.aop.api.domain.PeriodRuleParams import PeriodRuleParams  # noqa: E402
from alipay.aop.api.request.AlipayTradePayRequest import AlipayTradePayRequest  # noqa: E402
from alipay.aop.api.request.AlipayUserAgreementPageSignRequest import AlipayUserAgreementPageSignRequest  # noqa: E402
from alipay.aop.api.request.AlipayUserAgreementQueryRequest import AlipayUserAgreementQueryRequest  # noqa: E402
from alipay.aop.api.request.AlipayUserAgreementUnsignRequest import AlipayUserAgreementUnsignRequest  # noqa: E402
from alipay.aop.api.response.AlipayTradePayResponse import AlipayTradePayResponse  # noqa: E402
from alipay.aop.api.response.AlipayUserAgreementQueryResponse import AlipayUserAgreementQueryResponse  # noqa: E402
from alipay.aop.api.response.AlipayUserAgreementUnsignResponse import AlipayUserAgreementUnsignResponse  # noqa: E402

agreement_url, agreement_notes = start_receiver(verify_notification, reply=b"success")
sign_model = AlipayUserAgreementPageSignModel()
sign_model.personal_product_code = "CYCLE_PAY_AUTH_P"
sign_model.product_code = "CYCLE_PAY_AUTH"
sign_model.sign_scene = "INDUSTRY|DIGITAL_MEDIA"
sign_model.external_agreement_no = config["prefix"] + "G"
access = AccessParams()
access.channel = "ALIPAYAPP"
sign_model.access_params = access
rule = PeriodRuleParams()
rule.period_type = "DAY"
rule.period = 7
# Two days on (Beijing): today is inside the first period's early window.
rule.execute_time = ((datetime.datetime.utcnow() + datetime.timedelta(hours=8)).date() + datetime.timedelta(days=2)).isoformat()
rule.single_amount = "30.00"
sign_model.period_rule_params = rule
sign_request = AlipayUserAgreementPageSignRequest(biz_model=sign_model)
sign_request.notify_url = agreement_url
signed = control(config["payer"], "/sandbox/alipay/agreements/sign",
                 {"sign_string": client.sdk_execute(sign_request), "outcome": "agree"})
assert signed["status"] == "NORMAL", signed
assert wait_for(agreement_notes), "no dut_user_sign arrived"
sign_ok, sign_note = agreement_notes[0]
assert sign_ok and sign_note["notify_type"] == "dut_user_sign", sign_note
agreement_no = sign_note["agreement_no"]


def deduct(suffix):
    pay_model = AlipayTradePayModel()
    pay_model.out_trade_no = config["prefix"] + suffix
    pay_model.total_amount = "9.90"
    pay_model.subject = "membership"
    pay_model.product_code = "CYCLE_PAY_AUTH"
    params = AgreementParams()
    params.agreement_no = agreement_no
    pay_model.agreement_params = params
    answer = AlipayTradePayResponse()
    answer.parse_response_content(client.execute(AlipayTradePayRequest(biz_model=pay_model)))
    return answer


charged = deduct("D1")
assert charged.is_success() and charged.total_amount == "9.90", (charged.code, charged.sub_code)
twice = deduct("D2")
assert not twice.is_success() and twice.sub_code == "ACQ.CYCLE_PAY_DATE_NOT_MATCH", twice.sub_code
agreement_query = AlipayUserAgreementQueryModel()
agreement_query.agreement_no = agreement_no
read = AlipayUserAgreementQueryResponse()
read.parse_response_content(client.execute(AlipayUserAgreementQueryRequest(biz_model=agreement_query)))
assert read.is_success() and read.status == "NORMAL", (read.code, read.status)
unsign_model = AlipayUserAgreementUnsignModel()
unsign_model.agreement_no = agreement_no
unsigned = AlipayUserAgreementUnsignResponse()
unsigned.parse_response_content(client.execute(AlipayUserAgreementUnsignRequest(biz_model=unsign_model)))
assert unsigned.is_success(), (unsigned.code, unsigned.sub_code)
stopped = AlipayUserAgreementQueryResponse()
stopped.parse_response_content(client.execute(AlipayUserAgreementQueryRequest(biz_model=agreement_query)))

print(json.dumps({"trade_no": query.trade_no, "notification": notification["trade_no"], "wap": "cashier",
                  "agreement_charge": charged.trade_no, "agreement_twice": twice.sub_code, "agreement_status": stopped.status}))
