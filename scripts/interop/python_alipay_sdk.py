"""python-alipay-sdk 3.4.0 against Cashier's Alipay sandbox (run by CashierSandboxTests).

stdin: JSON {"gateway", "payer", "app_id", "app_private_key", "alipay_public_key", "prefix"}.
Creates, queries, refunds and closes trades (its requests are verified by the sandbox, the
sandbox's answers by it), and checks that its verify() accepts the sandbox's notification.
"""
import http.server
import json
import sys
import threading
import time
import urllib.parse
import urllib.request

from alipay import AliPay

config = json.load(sys.stdin)
client = AliPay(appid=config["app_id"], app_notify_url=None, app_private_key_string=config["app_private_key"],
                alipay_public_key_string=config["alipay_public_key"], sign_type="RSA2")
client._gateway = config["gateway"]
received = []


class Notify(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        data = {k: v[0] for k, v in urllib.parse.parse_qs(body, keep_blank_values=True).items()}
        signature = data.pop("sign")
        received.append((client.verify(dict(data), signature), data))
        reply = b"success"
        self.send_response(200)
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Notify)
threading.Thread(target=server.serve_forever, daemon=True).start()
notify_url = "http://127.0.0.1:%d/notify" % server.server_address[1]

paid = config["prefix"] + "P"
created = client.api_alipay_trade_precreate(subject="interop", out_trade_no=paid, total_amount="0.88", notify_url=notify_url)
assert created["code"] == "10000" and created["qr_code"].startswith("https://"), created
queried = client.api_alipay_trade_query(out_trade_no=paid)
assert queried["trade_status"] == "WAIT_BUYER_PAY", queried

request = urllib.request.Request(
    config["payer"], data=json.dumps({"provider": "alipay", "out_trade_no": paid, "outcome": "success"}).encode(),
    headers={"Content-Type": "application/json"}, method="POST")
assert json.load(urllib.request.urlopen(request))["trade_state"] == "TRADE_SUCCESS"
for _ in range(500):
    if received:
        break
    time.sleep(0.01)
assert received, "no notification arrived"
verified, notification = received[0]
assert verified, "python-alipay-sdk's verify() refused the sandbox's notification"
assert notification["out_trade_no"] == paid and notification["total_amount"] == "0.88", notification

assert client.api_alipay_trade_query(out_trade_no=paid)["trade_status"] == "TRADE_SUCCESS"
refund = client.api_alipay_trade_refund(refund_amount="0.30", out_trade_no=paid, out_request_no=paid + "R1")
assert refund["code"] == "10000" and refund["refund_fee"] == "0.30", refund
too_much = client.api_alipay_trade_refund(refund_amount="0.59", out_trade_no=paid, out_request_no=paid + "R2")
assert too_much["code"] == "40004", too_much

closed = config["prefix"] + "C"
client.api_alipay_trade_precreate(subject="interop", out_trade_no=closed, total_amount="0.05", notify_url=notify_url)
assert client.api_alipay_trade_close(out_trade_no=closed)["code"] == "10000"
assert client.api_alipay_trade_query(out_trade_no=closed)["trade_status"] == "TRADE_CLOSED"
missing = client.api_alipay_trade_query(out_trade_no=config["prefix"] + "NONE")
assert missing["sub_code"] == "ACQ.TRADE_NOT_EXIST", missing
print(json.dumps({"notification": notification["trade_no"], "refund": refund["refund_fee"], "close": "TRADE_CLOSED"}))
