"""wechatpayv3 2.0.4's complaint (消费者投诉 2.0) and upload methods against Cashier's WeChat Pay v3
sandbox, unmodified (run by CashierSandboxTests' WeChatPayV3ComplaintInteropTests).

stdin: JSON {"gateway", "sandbox", "mchid", "serial", "private_key", "apiv3_key", "appid", "platform_cert", "prefix"}.
Sets the complaint notification URL (create, query, update), has a payer complain about a paid
trade, reads the complaint (list, detail with the phone decrypted, history), uploads images —
complaint_image_upload and image_upload send `Content-Type: multipart/form-data` with no boundary
parameter and sign the meta JSON only —, answers with one, downloads the payer's and its own,
approves the refund, refunds, completes, and checks that callback() opens every notification.
Prints one JSON line; any mismatch raises.
"""
import base64
import json
import os
import sys
from datetime import datetime, timedelta, timezone

from sandbox_helpers import pay
from wechatpayv3_setup import connect, sandbox, wait_for

config = json.load(sys.stdin)
wxpay, notify_url, received, folder = connect(config, "complaints")
png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
image_path = os.path.join(folder, "receipt.png")
with open(image_path, "wb") as f:
    f.write(png)



def notification(complaint_id, action):
    # The trade's own notification comes here too.
    return wait_for(
        received, lambda resource: resource.get("complaint_id") == complaint_id and resource.get("action_type") == action,
        "%s of %s" % (action, complaint_id))


# The notification URL: none yet, created, queried, updated.
code, message = wxpay.complaint_notification_query()
assert code == 404, (code, message)
code, message = wxpay.complaint_notification_create(notify_url + "/first")
assert code == 200 and json.loads(message) == {"mchid": config["mchid"], "url": notify_url + "/first"}, (code, message)
code, message = wxpay.complaint_notification_update(notify_url)
assert code == 200 and json.loads(message)["url"] == notify_url, (code, message)
code, message = wxpay.complaint_notification_query()
assert code == 200 and json.loads(message)["url"] == notify_url, (code, message)

# A paid trade, and the payer's complaint about it.
number = config["prefix"] + "C"
code, message = wxpay.pay(description="interop", out_trade_no=number, amount={"total": 2599, "currency": "CNY"})
assert code == 200, (code, message)
assert pay(config["sandbox"] + "sandbox/pay", "wechat", number)["trade_state"] == "SUCCESS"
complaint_id = sandbox(config, "sandbox/wechat/complaints", {
    "out_trade_no": number, "complaint_detail": "咖啡是冷的", "problem_type": "REFUND", "problem_description": "申请退款",
    "payer_phone": "13912345678", "apply_refund_amount": 1000, "images": [base64.b64encode(png).decode()]})["complaint_id"]
created = notification(complaint_id, "CREATE_COMPLAINT")
assert created["event_type"] == "COMPLAINT.CREATE", created

today = datetime.now(timezone(timedelta(hours=8))).strftime("%Y-%m-%d")  # WeChat's days are Beijing's
code, message = wxpay.complaint_list_query(begin_date=today, end_date=today, limit=50)
listed = json.loads(message)
assert code == 200 and complaint_id in [c["complaint_id"] for c in listed["data"]] and listed["total_count"] >= 1, (code, message)
code, message = wxpay.complaint_detail_query(complaint_id)
detail = json.loads(message)
assert code == 200 and detail["complaint_state"] == "PENDING" and detail["complaint_order_info"][0]["out_trade_no"] == number, message
assert wxpay.decrypt(detail["payer_phone"]) == "13912345678"
code, message = wxpay.complaint_history_query(complaint_id)
assert code == 200 and json.loads(message)["data"][0]["operate_type"] == "USER_CREATE_COMPLAINT", (code, message)
code, content = wxpay.complaint_image_download(detail["complaint_media_list"][0]["media_url"][0])
assert code == 200 and content == png, (code, content[:80])

# Uploads: the header is a bare multipart/form-data (no boundary), the signature over meta only.
code, message = wxpay.complaint_image_upload(image_path)
assert code == 200, (code, message)
media_id = json.loads(message)["media_id"]
code, message = wxpay.image_upload(image_path)
assert code == 200, (code, message)
other_media = json.loads(message)["media_id"]
code, message = wxpay.complaint_response(complaint_id, "已为您退款", response_images=[other_media])
assert code == 400 and json.loads(message)["code"] == "PARAM_ERROR", (code, message)  # not a complaint image
code, message = wxpay.complaint_response(
    complaint_id, "抱歉，已为您退款", response_images=[media_id], jump_url="https://shop.example.com/o/1", jump_url_text="查看订单")
assert code == 204, (code, message)
code, message = wxpay.complaint_history_query(complaint_id)
history = json.loads(message)["data"]
assert history[-1]["operate_type"] == "MERCHANT_RESPONSE" and len(history[-1]["image_list"]) == 1, history
code, content = wxpay.complaint_image_download(history[-1]["image_list"][0])
assert code == 200 and content == png

code, message = wxpay.complaint_update_refund(complaint_id, "APPROVE", launch_refund_day=0)
assert code == 204, (code, message)
code, message = wxpay.refund(out_refund_no=number + "R", amount={"refund": 1000, "total": 2599, "currency": "CNY"}, out_trade_no=number)
assert code == 200 and json.loads(message)["status"] == "SUCCESS", (code, message)
notification(complaint_id, "REFUND_SUCCESS")
code, message = wxpay.complaint_detail_query(complaint_id)
assert json.loads(message)["complaint_state"] == "PROCESSED", message
code, message = wxpay.complaint_complete(complaint_id)
assert code == 204, (code, message)
code, message = wxpay.complaint_notification_delete()
assert code == 204, (code, message)
print(json.dumps({"complaint_id": complaint_id, "media_id": media_id, "state": "PROCESSED"}))
