#!/usr/bin/env python3
"""Receive Cashier's webhooks in a Python backend: check the signature, then act once per event.

    CASHIER_WEBHOOK_SECRET=whsec_… python3 webhook_receiver.py 8000

Configure `"webhook": {"url": "https://shop.example.com/hooks", "secret_env": "CASHIER_WEBHOOK_SECRET"}`
on the Cashier server. Every delivery carries:

- `Cashier-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" under the secret>`,
  stamped when it is sent (a retry is signed anew);
- `Cashier-Event-Id: evt_…`, the same on every retry of one event: act on an event once.

Answer 2xx once the event is safely recorded; anything else (or no answer) is retried with
backoff. Only the Python standard library is used. `make test` runs this file against a real
Cashier server (WebhookReceiverExampleTests).
"""
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SECRET = os.environ["CASHIER_WEBHOOK_SECRET"].encode()
TOLERANCE = 300  # seconds between the signature's time and now: an older one may be a replay


def verify(header, body, secret=SECRET, now=None):
    """True when `header` (the Cashier-Signature value) signs `body` (bytes) under `secret`
    within TOLERANCE seconds of `now`."""
    fields = [part.strip().split("=", 1) for part in header.split(",") if "=" in part]
    stamps = [value for name, value in fields if name == "t"]
    if len(stamps) != 1 or not stamps[0].isdigit():
        return False
    if abs((time.time() if now is None else now) - int(stamps[0])) > TOLERANCE:
        return False
    expected = hmac.new(secret, stamps[0].encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(expected, value) for name, value in fields if name == "v1")


# In a real backend: a table with a unique key on the event id, written in the same transaction
# as what the event changes (the order marked paid, the goods released).
seen = set()
seen_lock = threading.Lock()


def handle(event):
    """Your business: `event["type"]` is order.paid, order.refunded, order.refund_failed,
    order.closed, order.refund_required or order.disputed; `event["data"]` holds the order (its
    `order_id`, `out_trade_no`, `status`, `amount`) and the payment, refund or dispute."""
    data = event["data"]
    print(f"acted {event['type']} {event['id']} {data['order_id']} {data['amount']['amount_minor']}", flush=True)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not verify(self.headers.get("Cashier-Signature", ""), body):
            print("refused: the signature does not match (or is too old)", flush=True)
            return self.answer(400)
        event = json.loads(body)
        event_id = self.headers.get("Cashier-Event-Id") or event["id"]
        with seen_lock:  # two copies at once (a retry and a resend) are acted on once
            if event_id in seen:
                print(f"again {event_id}", flush=True)  # a retry, or sent again from the dashboard
            else:
                handle(event)
                seen.add(event_id)
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass  # no access log: the lines above say what happened


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8000), Receiver)
    print(f"listening on http://127.0.0.1:{server.server_port}/hooks", flush=True)
    server.serve_forever()
