"""What the Stripe and Adyen SDK interop scripts (processors.py, recurring_processors.py) share: the
config on stdin, a check that exits with its reason, the sandbox's JSON calls and the Apple Pay
tokens it mints, each SDK pointed at the sandbox, a receiver for the Stripe events the sandbox
signs, and the field-by-field comparison of an SDK's request with Cashier's."""
import http.server
import json
import queue
import sys
import threading
import urllib.request

import Adyen
import stripe

CardError = getattr(stripe, "CardError", None) or stripe.error.CardError
InvalidRequestError = getattr(stripe, "InvalidRequestError", None) or stripe.error.InvalidRequestError
AuthenticationError = getattr(stripe, "AuthenticationError", None) or stripe.error.AuthenticationError


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


class Sandbox:
    """Cashier's sandbox at url (ending in /): its JSON control routes and the Apple Pay tokens it mints."""

    def __init__(self, url):
        self.url = url

    def post(self, path, body):
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    def mint(self, amount, currency="USD", card=None):
        body = {"amount": amount, "currency": currency}
        if card:
            body["card"] = card
        return self.post("sandbox/applepay/token", body)["token"]


def read_config():
    """The JSON config on stdin and the sandbox its "sandbox" names."""
    config = json.load(sys.stdin)
    return config, Sandbox(config["sandbox"])


def point_stripe(sandbox):
    """Stripe's SDK against the sandbox's Stripe, with a test key and no retries."""
    stripe.api_key = "sk_test_interop"
    stripe.api_base = sandbox.url + "stripe"
    stripe.max_network_retries = 0


def stripe_token(payment):
    """A Stripe token made from a minted Apple Pay payment (pk_token)."""
    return stripe.Token.create(
        pk_token=json.dumps(payment["paymentData"]),
        pk_token_instrument_name=payment["paymentMethod"]["displayName"],
        pk_token_payment_network=payment["paymentMethod"]["network"],
        pk_token_transaction_id=payment["transactionIdentifier"],
    )


def receive_stripe_events(sandbox, signing_secret):
    """Registers an endpoint on 127.0.0.1 for the sandbox's Stripe webhooks; each delivery, verified
    by Stripe's own construct_event, goes on the queue (the exception where the SDK refuses it, then
    answered 400). Returns (events, server); shut the server down when done."""
    events = queue.Queue()

    class Endpoint(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            payload = self.rfile.read(int(self.headers["Content-Length"]))
            try:
                events.put(stripe.Webhook.construct_event(payload, self.headers.get("Stripe-Signature"), signing_secret))
                self.send_response(200)
            except Exception as error:  # a signature Stripe's library refuses
                events.put(error)
                self.send_response(400)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Endpoint)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sandbox.post("sandbox/stripe/webhook", {"url": "http://127.0.0.1:%d/" % server.server_port, "secret": signing_secret})
    return events, server


def adyen_client(sandbox):
    """Adyen's SDK with a test key, its checkout services (payments, modifications, recurring) at the sandbox's Adyen."""
    adyen = Adyen.Adyen()
    adyen.client.xapikey = "AQE_interop"
    adyen.client.platform = "test"
    base = sandbox.url + "adyen/v72"
    adyen.checkout.payments_api.baseUrl = base
    adyen.checkout.modifications_api.baseUrl = base
    adyen.checkout.recurring_api.baseUrl = base
    return adyen


def request_body(raw_request):
    """The body an SDK sent (its raw_request, a dict or JSON text) as a dict."""
    return raw_request if isinstance(raw_request, dict) else json.loads(raw_request)


def differing_fields(sent, cashier):
    """The top-level fields in which the SDK's body and Cashier's differ, sorted."""
    return sorted(key for key in set(sent) | set(cashier) if sent.get(key) != cashier.get(key))
