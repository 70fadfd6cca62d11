"""wechatpayv3 2.0.4's merchant transfer (商家转账, 2025) methods against Cashier's WeChat Pay v3
sandbox, unmodified (run by CashierSandboxTests' WeChatPayV3TransferInteropTests).

stdin: JSON {"gateway", "sandbox", "mchid", "serial", "private_key", "apiv3_key", "appid", "platform_cert", "prefix"}.
Transfers to a payee (user_name encrypted by wechatpayv3 with the platform certificate and sent
with its Wechatpay-Serial, from 2000 yuan), sends the same bill again, queries it both ways, has
the payee confirm it through the sandbox's payer call, opens the MCHTRANSFER.BILL.FINISHED
notification with callback(), and cancels a second transfer. Prints one JSON line; any mismatch raises.
"""
import json
import sys

from wechatpayv3_setup import connect, sandbox, wait_for

config = json.load(sys.stdin)
wxpay, notify_url, received, _ = connect(config, "transfers")
reports = [{"info_type": "活动名称", "info_content": "新会员有礼"}, {"info_type": "奖励说明", "info_content": "注册会员抽奖一等奖"}]



def notification(number):
    return wait_for(received, lambda resource: resource.get("out_bill_no") == number, number)


# 2,000 yuan: wechatpayv3 encrypts the name with the platform certificate and names its serial.
number = config["prefix"] + "T1"
code, message = wxpay.mch_transfer_bills(
    out_bill_no=number, transfer_scene_id="1000", openid="oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", transfer_amount=200000,
    transfer_remark="新会员开通有礼", user_name="张三", transfer_scene_report_infos=reports)
assert code == 200, (code, message)
bill = json.loads(message)
assert bill["state"] == "WAIT_USER_CONFIRM" and bill["package_info"] and bill["out_bill_no"] == number, bill
# Sent again: the same bill, with a fresh package.
code, message = wxpay.mch_transfer_bills(
    out_bill_no=number, transfer_scene_id="1000", openid="oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", transfer_amount=200000,
    transfer_remark="新会员开通有礼", user_name="张三", transfer_scene_report_infos=reports)
again = json.loads(message)
assert code == 200 and again["transfer_bill_no"] == bill["transfer_bill_no"], (code, message)
code, message = wxpay.mch_transfer_bills_query(out_bill_no=number)
queried = json.loads(message)
assert code == 200 and queried["state"] == "WAIT_USER_CONFIRM" and queried["mch_id"] == config["mchid"], (code, message)
code, message = wxpay.mch_transfer_bills_query(transfer_bill_no=bill["transfer_bill_no"])
assert code == 200 and json.loads(message)["out_bill_no"] == number, (code, message)

confirmed = sandbox(config, "sandbox/wechat/transfer_bills/confirm", {
    "out_bill_no": number, "package_info": bill["package_info"], "mchid": config["mchid"], "appid": config["appid"],
    "outcome": "confirm"})
assert confirmed["state"] == "SUCCESS", confirmed
finished = notification(number)
assert finished["event_type"] == "MCHTRANSFER.BILL.FINISHED", finished
assert finished["resource"]["state"] == "SUCCESS" and finished["resource"]["transfer_amount"] == 200000, finished

# A second transfer, cancelled before its payee confirms.
cancelled = config["prefix"] + "T2"
code, message = wxpay.mch_transfer_bills(
    out_bill_no=cancelled, transfer_scene_id="1000", openid="oUpF8uMuAJO_M2pxb1Q9zNjWeS6o", transfer_amount=100,
    transfer_remark="奖励", transfer_scene_report_infos=reports)
assert code == 200, (code, message)
code, message = wxpay.mch_transfer_bills_cancel(cancelled)
assert code == 200 and json.loads(message)["state"] == "CANCELLED", (code, message)
assert notification(cancelled)["resource"]["state"] == "CANCELLED"

print(json.dumps({"transfer_bill_no": bill["transfer_bill_no"], "state": "SUCCESS"}))
