"""Known answers for WeChat Pay v3 complaints and media upload, made with the peer SDK itself
(wechatpayv3 2.0.4's signing and encryption helpers, and `requests`' multipart body exactly as
wechatpayv3's _media_upload prepares it: a bare `multipart/form-data` header, the boundary only
in the body). Writes Tests/WeChatPayTests/Vectors/v3_complaints.json; run with .venv's python.
The key is wechatpay-go's test key (from v3_sign.json); nothing here is a real merchant's.
"""
import base64
import json
import os
import sys

import requests
from wechatpayv3.utils import load_private_key, rsa_encrypt, rsa_sign, sha256

root = os.path.join(os.path.dirname(__file__), "..", "..")
vectors = os.path.join(root, "Tests", "WeChatPayTests", "Vectors")
key_pem = json.load(open(os.path.join(vectors, "v3_sign.json")))["wechatpay_go_sha256withrsa"]["private_key_pkcs8_pem"]
private_key = load_private_key(key_pem)
public_key_pem = private_key.public_key().public_bytes(
    __import__("cryptography.hazmat.primitives.serialization", fromlist=["x"]).Encoding.PEM,
    __import__("cryptography.hazmat.primitives.serialization", fromlist=["x"]).PublicFormat.SubjectPublicKeyInfo).decode()

# A 1×1 PNG.
png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
filename = "receipt.png"
meta = '{"filename":"%s","sha256":"%s"}' % (filename, sha256(png))  # as wechatpayv3 writes it
timestamp, nonce = "1764576000", "593BEC0C930BF1AFEB40B4A08C8FB242"
sign_str = "POST\n/v3/merchant-service/images/upload\n%s\n%s\n%s\n" % (timestamp, nonce, meta)
signature = rsa_sign(private_key, sign_str)
prepared = requests.Request(
    "POST", "http://127.0.0.1/v3/merchant-service/images/upload", data={"meta": meta},
    files=[("file", (filename, png, "image/png"))], headers={"Content-Type": "multipart/form-data"}).prepare()
phone = "13800138000"
out = {
    "source": "scripts/test/make_complaint_vectors.py: wechatpayv3 2.0.4 utils.rsa_sign / rsa_encrypt / sha256 and requests' "
              "multipart body as wechatpayv3._media_upload prepares it",
    "private_key_pkcs8_pem": key_pem,
    "upload": {
        "filename": filename, "file_base64": base64.b64encode(png).decode(), "sha256": sha256(png), "meta": meta,
        "timestamp": timestamp, "nonce": nonce, "message": sign_str, "signature": signature,
        "content_type": prepared.headers["Content-Type"], "body_base64": base64.b64encode(prepared.body).decode(),
    },
    "payer_phone": {"plaintext": phone, "ciphertext": rsa_encrypt(phone, private_key.public_key())},
    "complaint_detail": {
        "source": "pay.weixin.qq.com/doc/v3/merchant/4012533436 (the documented example, media URL and phone replaced)",
        "json": {
            "complaint_id": "200201820200101080076610000", "complaint_time": "2015-05-20T13:29:35.120+08:00",
            "complaint_detail": "反馈一个重复扣费的问题", "complaint_state": "PENDING", "complainted_mchid": "1900012181",
            "payer_phone": "<ciphertext>", "payer_openid": "oxTWIuGaIt6gTKsQRLau2M0yL16E",
            "complaint_order_info": [{"transaction_id": "4200000000000000000000000000", "out_trade_no": "20190906154617947762231", "amount": 3}],
            "complaint_media_list": [{"media_type": "USER_COMPLAINT_IMAGE",
                                      "media_url": ["https://api.mch.weixin.qq.com/v3/merchant-service/images/xxxxx"]}],
            "service_order_info": [], "complaint_full_refunded": False, "incoming_user_response": True,
            "problem_description": "不满意商家服务", "user_complaint_times": 1, "problem_type": "REFUND", "apply_refund_amount": 10,
            "user_tag_list": ["TRUSTED"], "in_platform_service": False, "need_immediate_service": False,
        },
    },
    "negotiation_history": {
        "source": "pay.weixin.qq.com/doc/v3/merchant/4012533439 (complaint_media_list an object, as documented; a list in the second)",
        "json": {"data": [
            {"log_id": "300285902019000000000000000000", "operator": "投诉人", "operate_time": "2015-05-20T13:29:35.120+08:00",
             "operate_type": "USER_CREATE_COMPLAINT", "operate_details": "已与用户电话沟通解决",
             "image_list": ["https://api.mch.weixin.qq.com/v3/merchant-service/images/a"],
             "complaint_media_list": {"media_type": "USER_COMPLAINT_IMAGE",
                                      "media_url": ["https://api.mch.weixin.qq.com/v3/merchant-service/images/a",
                                                    "https://api.mch.weixin.qq.com/v3/merchant-service/images/b"]}},
            {"log_id": "300285902019000000000000000001", "operator": "商户", "operate_time": "2015-05-21T10:00:00+08:00",
             "operate_type": "MERCHANT_RESPONSE", "operate_details": "已退款",
             "complaint_media_list": [{"media_type": "OPERATION_IMAGE",
                                       "media_url": ["https://api.mch.weixin.qq.com/v3/merchant-service/images/c"]}]},
        ], "limit": 100, "offset": 0, "total_count": 2},
    },
    "notification_resource": {
        "source": "wechatpay-im/website webhook/v3/COMPLAINT.CREATE.md (resource fields)",
        "json": {"complaint_id": "200201820200101080076610000", "action_type": "CREATE_COMPLAINT"},
    },
}
json.dump(out, open(os.path.join(vectors, "v3_complaints.json"), "w"), ensure_ascii=False, indent=1)
print("wrote v3_complaints.json", file=sys.stderr)
