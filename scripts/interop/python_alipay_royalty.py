"""python-alipay-sdk 3.4.0, unmodified, against Cashier's Alipay sandbox: profit sharing and transfers
(run by CashierSandboxTests).

stdin: JSON {"gateway", "payer", "app_id", "app_private_key", "alipay_public_key", "app_cert", "alipay_cert",
"root_cert", "seller_id", "prefix"}.
Binds a royalty relation (server_api), settles a frozen trade asynchronously (api_alipay_trade_order_settle),
queries it (PROCESSING), moves the sandbox's royalty clock, receives alipay.trade.order.settle.notify at the
app's application gateway and checks its signature with the SDK's key (content keeping sign_type), queries it
again (SUCCESS) and what is left (onsettle); then, in certificate mode (DCAliPay), a transfer and
alipay.fund.account.query.
"""
import json
import urllib.request

from alipay import DCAliPay

from python_alipay_setup import connect, notification_fields
from sandbox_helpers import pay, start_receiver, wait_for

config, client, control = connect()
prefix = config["prefix"]
alice = "2088000000000101"


def check_settle_notify(headers, body):
    data, signature = notification_fields(body)
    # Message-service notifications are signed keeping sign_type; the SDK's verify() drops it, so its
    # own RSA2 check (_verify) is given the content with sign_type kept.
    message = "&".join("{}={}".format(k, v) for k, v in sorted(data.items()) if v != "")
    return client._verify(message, signature), data


gateway_url, received = start_receiver(check_settle_notify, reply=b"success")
assert control("/sandbox/alipay/gateway", {"app_id": config["app_id"], "url": gateway_url})["url"] == gateway_url

bound = client.server_api("alipay.trade.royalty.relation.bind", {
    "out_request_no": prefix + "B1", "receiver_list": [{"type": "userId", "account": alice, "memo": "interop"}]})
assert bound["code"] == "10000" and bound["result_code"] == "SUCCESS", bound
listed = client.server_api("alipay.trade.royalty.relation.batchquery", {"out_request_no": prefix + "Q1", "page_num": 1, "page_size": 20})
assert [r["account"] for r in listed["receiver_list"]] == [alice], listed

number = prefix + "T"
created = client.api_alipay_trade_precreate(subject="royalty", out_trade_no=number, total_amount="10.00",
                                            extend_params={"royalty_freeze": "true"})
assert created["code"] == "10000", created
assert pay(config["payer"], "alipay", number)["trade_state"] == "TRADE_SUCCESS"
trade_no = client.api_alipay_trade_query(out_trade_no=number)["trade_no"]

# Async settles stay PROCESSING for ten sandbox minutes, whatever the machine's speed, until the clock is moved.
control("/sandbox/alipay/royalty/delay", {"seconds": 600})
settled = client.api_alipay_trade_order_settle(
    prefix + "S1", trade_no,
    [{"royalty_type": "transfer", "trans_in_type": "userId", "trans_in": alice, "amount": "1.50", "desc": "interop"}],
    royalty_mode="async")
assert settled["code"] == "10000" and settled["settle_no"], settled
processing = client.server_api("alipay.trade.order.settle.query", {"settle_no": settled["settle_no"]})
assert [d["state"] for d in processing["royalty_detail_list"]] == ["PROCESSING"], processing
too_much = client.api_alipay_trade_order_settle(
    prefix + "S2", trade_no, [{"royalty_type": "transfer", "trans_in_type": "userId", "trans_in": alice, "amount": "2.00"}],
    royalty_mode="async")
assert too_much["sub_code"] == "ACQ.ALLOC_AMOUNT_VALIDATE_ERROR", too_much

control("/sandbox/alipay/royalty/advance", {"seconds": 601})
assert wait_for(received), "no settle notification arrived at the application gateway"
verified, notification = received[0]
assert verified, "the settle notification's signature did not verify with the SDK's key"
assert notification["msg_method"] == "alipay.trade.order.settle.notify", notification
biz = json.loads(notification["biz_content"])
assert biz["settle_no"] == settled["settle_no"] and biz["royalty_detail_list"][0]["state"] == "SUCCESS", biz

done = client.server_api("alipay.trade.order.settle.query", {"out_request_no": prefix + "S1", "trade_no": trade_no})
assert [d["state"] for d in done["royalty_detail_list"]] == ["SUCCESS"], done
left = client.server_api("alipay.trade.order.onsettle.query", {"trade_no": trade_no})
assert left["unsettled_amount"] == "8.50", left

# Certificate mode: DCAliPay is the SDK's only client with a transfer call.
cert_client = DCAliPay(appid=config["app_id"], app_private_key_string=config["app_private_key"],
                       app_public_key_cert_string=config["app_cert"], alipay_public_key_cert_string=config["alipay_cert"],
                       alipay_root_cert_string=config["root_cert"])
cert_client._gateway = config["gateway"]
before = cert_client.server_api("alipay.fund.account.query", {"alipay_user_id": config["seller_id"], "account_type": "ACCTRANS_ACCOUNT"})
assert before["code"] == "10000", before
transfer = cert_client.api_alipay_fund_trans_uni_transfer(prefix + "X1", "ALIPAY_USER_ID", alice, "1.00", order_title="interop")
assert transfer["code"] == "10000" and transfer["status"] == "SUCCESS", transfer
after = cert_client.server_api("alipay.fund.account.query", {"alipay_user_id": config["seller_id"], "account_type": "ACCTRANS_ACCOUNT"})
spent = round(float(before["available_amount"]) - float(after["available_amount"]), 2)
assert spent == 1.00, (before, after)

print(json.dumps({"settle": biz["royalty_detail_list"][0]["state"], "unsettled": left["unsettled_amount"],
                  "transfer": transfer["status"], "spent": "%.2f" % spent, "relation": listed["receiver_list"][0]["account"]}))
