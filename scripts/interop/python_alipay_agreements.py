"""python-alipay-sdk 3.4.0, unmodified, against Cashier's Alipay sandbox: agreements (周期扣款)
(run by CashierSandboxTests).

stdin: JSON {"gateway", "payer", "app_id", "app_private_key", "alipay_public_key", "prefix"}.
Builds alipay.user.agreement.page.sign with client_api: as a page address (GET on the gateway: the payer's
page; then the payer's JSON call signs it by external_agreement_no) and as the app's sign string (carried by
the payer's JSON call). Checks dut_user_sign with the SDK's verify, reads the agreement
(server_api alipay.user.agreement.query), charges under it (server_api alipay.trade.pay with agreement_params):
paid once in the period, ACQ.CYCLE_PAY_DATE_NOT_MATCH for a second, ACQ.BUYER_BALANCE_NOT_ENOUGH when the payer
is short, paid again once the sandbox's agreement clock reaches the next period; the merchant unsigns one
(server_api alipay.user.agreement.unsign with notify_url) and the payer the other in the app (dut_user_unsign
at the application gateway); both notifications verify with the SDK.
"""
import datetime
import json
import urllib.request

from python_alipay_setup import connect, notification_fields
from sandbox_helpers import start_receiver, wait_for

config, client, control = connect()
prefix = config["prefix"]
scene = "INDUSTRY|DIGITAL_MEDIA"


def verified(headers, body):
    """A notification, checked with the SDK's own verify (sign and sign_type removed)."""
    data, signature = notification_fields(body)
    fields = dict(data)
    return client.verify(data, signature), fields


notify_url, notified = start_receiver(verified, reply=b"success")
gateway_url, at_gateway = start_receiver(verified, reply=b"success")
unsign_url, merchant_unsigns = start_receiver(verified, reply=b"success")
assert control("/sandbox/alipay/gateway", {"app_id": config["app_id"], "url": gateway_url})["url"] == gateway_url

# Weekly from two days on (Beijing): today is inside the first period's early window.
today = (datetime.datetime.utcnow() + datetime.timedelta(hours=8)).date()
execute_time = (today + datetime.timedelta(days=2)).isoformat()


def sign_request(external_no):
    return {
        "personal_product_code": "CYCLE_PAY_AUTH_P", "product_code": "CYCLE_PAY_AUTH", "sign_scene": scene,
        "external_agreement_no": external_no, "access_params": {"channel": "ALIPAYAPP"},
        "period_rule_params": {"period_type": "DAY", "period": 7, "execute_time": execute_time, "single_amount": "30.00"},
    }


# 1. The page address: the payer's page, then the payer agrees by the JSON call.
page_no = prefix + "P"
page_url = config["gateway"] + "?" + client.client_api("alipay.user.agreement.page.sign", sign_request(page_no),
                                                        notify_url=notify_url)
page = urllib.request.urlopen(page_url).read().decode()
assert 'id="agree"' in page and 'id="refuse"' in page, page
temporary = client.server_api("alipay.user.agreement.query", {
    "external_agreement_no": page_no, "personal_product_code": "CYCLE_PAY_AUTH_P", "sign_scene": scene})
assert temporary["status"] == "TEMP", temporary
signed = control("/sandbox/alipay/agreements/sign", {"external_agreement_no": page_no, "outcome": "agree"})
assert signed["status"] == "NORMAL", signed
assert wait_for(notified), "no dut_user_sign arrived"
ok, sign_notification = notified[0]
assert ok, "dut_user_sign did not verify with the SDK"
assert sign_notification["notify_type"] == "dut_user_sign" and sign_notification["status"] == "NORMAL", sign_notification
page_agreement = sign_notification["agreement_no"]
assert page_agreement == signed["agreement_no"], (page_agreement, signed)

# 2. The app's sign string, carried by the payer's call.
app_no = prefix + "A"
sign_string = client.client_api("alipay.user.agreement.page.sign", sign_request(app_no), notify_url=notify_url)
app_agreement = control("/sandbox/alipay/agreements/sign", {"sign_string": sign_string, "outcome": "agree"})["agreement_no"]

query = client.server_api("alipay.user.agreement.query", {"agreement_no": app_agreement})
assert query["status"] == "NORMAL" and query["external_agreement_no"] == app_no, query
assert query["next_deduct_time"] == execute_time, query


def deduct(agreement_no, suffix, amount="9.90"):
    return client.server_api("alipay.trade.pay", {
        "out_trade_no": prefix + suffix, "total_amount": amount, "subject": "membership", "product_code": "CYCLE_PAY_AUTH",
        "agreement_params": {"agreement_no": agreement_no}})


paid = deduct(app_agreement, "T1")
assert paid["code"] == "10000" and paid["total_amount"] == "9.90", paid
again = deduct(app_agreement, "T2")
assert again["sub_code"] == "ACQ.CYCLE_PAY_DATE_NOT_MATCH", again
assert client.api_alipay_trade_query(out_trade_no=prefix + "T1")["trade_status"] == "TRADE_SUCCESS"
too_much = deduct(page_agreement, "T3", amount="30.01")
assert too_much["sub_code"] == "ACQ.CYCLE_PAY_SINGLE_FEE_EXCEED", too_much

control("/sandbox/alipay/agreements/advance", {"days": 7})
control("/sandbox/alipay/agreements/balance", {"agreement_no": app_agreement, "outcome": "insufficient"})
short = deduct(app_agreement, "T4")
assert short["sub_code"] == "ACQ.BUYER_BALANCE_NOT_ENOUGH", short
control("/sandbox/alipay/agreements/balance", {"agreement_no": app_agreement, "outcome": "sufficient"})
second = deduct(app_agreement, "T5")
assert second["code"] == "10000", second

# The merchant unsigns one (notified to the unsign's notify_url); the payer the other, in the app.
unsigned = client.server_api("alipay.user.agreement.unsign", {"agreement_no": app_agreement}, notify_url=unsign_url)
assert unsigned["code"] == "10000", unsigned
assert wait_for(merchant_unsigns), "no dut_user_unsign arrived at the unsign's notify_url"
merchant_ok, merchant_unsign = merchant_unsigns[0]
assert merchant_ok and merchant_unsign["notify_type"] == "dut_user_unsign", merchant_unsign
assert merchant_unsign["agreement_no"] == app_agreement and merchant_unsign["status"] == "UNSIGN", merchant_unsign
control("/sandbox/alipay/agreements/unsign", {"external_agreement_no": page_no})
assert wait_for(at_gateway), "no dut_user_unsign arrived at the application gateway"
gateway_ok, payer_unsign = at_gateway[0]
assert gateway_ok and payer_unsign["agreement_no"] == page_agreement, payer_unsign
stopped = client.server_api("alipay.user.agreement.query", {"agreement_no": page_agreement})
gone = deduct(page_agreement, "T6")

print(json.dumps({"paid": paid["trade_no"], "second": second["code"], "again": again["sub_code"], "short": short["sub_code"],
                  "sign_notification": sign_notification["status"], "merchant_unsign": merchant_unsign["status"],
                  "payer_unsign": payer_unsign["notify_type"], "stopped": stopped["status"], "gone": gone["sub_code"]}))
