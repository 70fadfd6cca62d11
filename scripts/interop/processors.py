#!/usr/bin/env python3
"""Stripe's and Adyen's own Python SDKs (PyPI `stripe` 16.x, `Adyen` 16.x) against Cashier's
sandbox: Apple Pay tokens minted by the sandbox are turned into Stripe tokens and confirmed
PaymentIntents, authorised at Adyen, then captured, voided, refunded (full and partial), and
declined. Reads {"sandbox": "http://127.0.0.1:PORT/", "cashier_adyen_body": {...}} on stdin and
prints a JSON summary; any broken expectation exits non-zero with the reason on stderr."""
import base64
import json

import stripe

from processor_sdks import (AuthenticationError, CardError, InvalidRequestError, adyen_client, check, differing_fields, fail,
                            point_stripe, read_config, receive_stripe_events, request_body, stripe_token)

config, sandbox = read_config()
summary = {}


# --- Stripe: tokens from pk_token, PaymentIntents, capture, cancel, refunds -------------------
point_stripe(sandbox)


def confirm(token, amount, capture="automatic", key=None):
    return stripe.PaymentIntent.create(
        amount=amount,
        currency="usd",
        payment_method_data={"type": "card", "card": {"token": token.id}},
        confirm=True,
        capture_method=capture,
        metadata={"cashier_payment": "interop-%d" % amount},
        idempotency_key=key,
    )


token = stripe_token(sandbox.mint("12.34"))
check(token.id.startswith("tok_") and token.card.tokenization_method == "apple_pay", "token: %s" % token)
intent = confirm(token, 1234, key="interop-pi-1")
check(intent.status == "succeeded" and intent.amount_received == 1234, "automatic capture: %s" % intent)
again = confirm(token, 1234, key="interop-pi-1")
check(again.id == intent.id, "the same Idempotency-Key answered another PaymentIntent")
try:
    confirm(token, 1234, key="interop-pi-other")
    fail("a used token was accepted again")
except InvalidRequestError as error:
    check(error.code == "token_already_used", "reused token: %s" % error.code)
partial = stripe.Refund.create(payment_intent=intent.id, amount=234, metadata={"cashier_refund": "cashier_R1_refund"})
rest = stripe.Refund.create(payment_intent=intent.id)
check(partial.status == "succeeded" and partial.amount == 234 and rest.amount == 1000, "refunds: %s %s" % (partial, rest))
try:
    stripe.Refund.create(payment_intent=intent.id, amount=1)
    fail("a refund beyond the payment was accepted")
except InvalidRequestError as error:
    check(error.code == "charge_already_refunded", "over-refund: %s" % error.code)
summary["stripe_refunded"] = partial.amount + rest.amount

held = confirm(stripe_token(sandbox.mint("20.00")), 2000, capture="manual")
check(held.status == "requires_capture" and held.amount_capturable == 2000, "manual capture: %s" % held)
captured = stripe.PaymentIntent.capture(held.id, amount_to_capture=1500)
check(captured.status == "succeeded" and captured.amount_received == 1500, "partial capture: %s" % captured)
voided = stripe.PaymentIntent.cancel(confirm(stripe_token(sandbox.mint("30.00")), 3000, capture="manual").id)
check(voided.status == "canceled", "cancel: %s" % voided)
try:
    stripe.PaymentIntent.cancel(captured.id)
    fail("a captured PaymentIntent was cancelled")
except InvalidRequestError as error:
    check(error.code == "payment_intent_unexpected_state", "cancel after capture: %s" % error.code)

try:
    confirm(stripe_token(sandbox.mint("9.00", card="4000000000009995")), 900)
    fail("the insufficient-funds card was charged")
except CardError as error:
    check(error.code == "card_declined" and error.error.decline_code == "insufficient_funds", "decline: %s" % error.error)
    summary["stripe_decline"] = error.error.decline_code

# The two-step flow Stripe's docs show: create, attach a PaymentMethod made from the token, confirm.
draft = stripe.PaymentIntent.create(amount=4200, currency="usd", capture_method="automatic")
check(draft.status == "requires_payment_method", "draft: %s" % draft)
method = stripe.PaymentMethod.create(type="card", card={"token": stripe_token(sandbox.mint("42.00")).id})
check(method.id.startswith("pm_"), "payment method: %s" % method)
confirmed = stripe.PaymentIntent.confirm(draft.id, payment_method=method.id)
check(confirmed.id == draft.id and confirmed.status == "succeeded", "confirm: %s" % confirmed)
check(stripe.PaymentIntent.retrieve(draft.id).amount_received == 4200, "retrieve after confirm")
check(stripe.Refund.retrieve(partial.id).amount == 234, "refund retrieve")
# Listed by PaymentIntent, newest first, with the metadata a refund was made with (how Cashier
# finds a refund whose answer was lost).
listed = stripe.Refund.list(payment_intent=intent.id, limit=1)
check(listed.has_more and listed.data[0].id == rest.id, "refund list page: %s" % listed)
found = [
    r for r in stripe.Refund.list(payment_intent=intent.id).auto_paging_iter()
    if r.metadata.to_dict().get("cashier_refund") == "cashier_R1_refund"
]
check([r.id for r in found] == [partial.id], "refund found by metadata: %s" % found)
check(stripe.Token.retrieve(token.id).card.tokenization_method == "apple_pay", "token retrieve")
summary["stripe_two_step"] = confirmed.status

listed = stripe.PaymentIntent.list(limit=100)
check({intent.id, captured.id, voided.id} <= {item.id for item in listed.data}, "list misses PaymentIntents")
summary["stripe_listed"] = len(listed.data)

# Webhook events: the sandbox signs them as Stripe does, and Stripe's own check verifies each.
events, endpoint = receive_stripe_events(sandbox, "whsec_interop_0123456789")
sandbox.post("sandbox/stripe/dispute", {"payment_intent": captured.id, "event": "funds_withdrawn"})
received = [events.get(timeout=10), events.get(timeout=10)]
check(all(isinstance(e, stripe.Event) for e in received), "the SDK refused the sandbox's signature: %s" % received)
check(sorted(e.type for e in received) == ["charge.dispute.created", "charge.dispute.funds_withdrawn"], "events: %s" % received)
withdrawn = [e for e in received if e.type == "charge.dispute.funds_withdrawn"][0].data.object
check(withdrawn.payment_intent == captured.id and withdrawn.amount == 1500, "dispute: %s" % withdrawn)
disputes = stripe.Dispute.list(payment_intent=captured.id)
check(
    [d.id for d in disputes.data] == [withdrawn.id] and disputes.data[0].balance_transactions[0].amount == -1500,
    "dispute list: %s" % disputes,
)
summary["stripe_dispute_events"] = sorted(e.type for e in received)

# A PaymentIntent Stripe leaves processing (the sandbox's amounts ending in 56), decided later: the
# SDK reads it as Stripe shows one, cannot cancel it, and verifies the events that decide it.
undecided = confirm(stripe_token(sandbox.mint("19.56")), 1956)
check(undecided.status == "processing" and undecided.amount_received == 0, "processing: %s" % undecided)
try:
    stripe.PaymentIntent.cancel(undecided.id)
    fail("a processing PaymentIntent was cancelled")
except InvalidRequestError as error:
    check(error.code == "payment_intent_unexpected_state", "cancel while processing: %s" % error.code)
refused = confirm(stripe_token(sandbox.mint("18.56")), 1856)
sandbox.post("sandbox/stripe/decide", {"payment_intent": undecided.id, "outcome": "succeeded"})
sandbox.post("sandbox/stripe/decide", {"payment_intent": refused.id, "outcome": "failed"})
decided = [events.get(timeout=10), events.get(timeout=10)]
check(all(isinstance(e, stripe.Event) for e in decided), "the SDK refused the sandbox's signature: %s" % decided)
by_type = {e.type: e.data.object for e in decided}
succeeded = by_type.get("payment_intent.succeeded")
check(succeeded is not None and succeeded.id == undecided.id and succeeded.status == "succeeded", "succeeded: %s" % decided)
failed = by_type.get("payment_intent.payment_failed")
check(
    failed is not None and failed.id == refused.id and failed.status == "requires_payment_method"
    and failed.last_payment_error.message,
    "payment_failed: %s" % decided,
)
check(stripe.PaymentIntent.retrieve(undecided.id).status == "succeeded", "retrieve after the decision")
summary["stripe_processing_events"] = sorted(by_type)
endpoint.shutdown()

stripe.api_key = "sk_live_not_here"
try:
    stripe.PaymentIntent.list(limit=1)
    fail("a live key was accepted by the sandbox")
except AuthenticationError:
    summary["stripe_live_key"] = "refused"

# --- Adyen: /payments with applepay, captures, cancels, refunds -------------------------------
adyen = adyen_client(sandbox)


def adyen_pay(payment, value, reference, manual=False, key=None, account="CashierInterop"):
    request = {
        "amount": {"currency": "USD", "value": value},
        "reference": reference,
        "merchantAccount": account,
        "paymentMethod": {
            "type": "applepay",
            "applePayToken": base64.b64encode(json.dumps(payment["paymentData"]).encode()).decode(),
        },
        "shopperInteraction": "Ecommerce",
    }
    if manual:
        request["additionalData"] = {"manualCapture": "true"}
    return adyen.checkout.payments_api.payments(request, idempotency_key=key)


first = sandbox.mint("45.00")
paid = adyen_pay(first, 4500, "interop-adyen-1", key="interop-adyen-1")
check(paid.message["resultCode"] == "Authorised", "adyen authorise: %s" % paid.message)
psp = paid.message["pspReference"]
repeat = adyen_pay(first, 4500, "interop-adyen-1", key="interop-adyen-1")
check(repeat.message.get("pspReference") == psp, "adyen idempotency: %s" % repeat.message)
modifications = adyen.checkout.modifications_api
refund = modifications.refund_captured_payment(
    {"merchantAccount": "CashierInterop", "amount": {"currency": "USD", "value": 500}, "reference": "r1"}, psp,
    idempotency_key="interop-adyen-r1",
)
check(refund.message["status"] == "received" and refund.message["paymentPspReference"] == psp, "adyen refund: %s" % refund.message)
held = adyen_pay(sandbox.mint("60.00"), 6000, "interop-adyen-2", manual=True)
capture = modifications.capture_authorised_payment(
    {"merchantAccount": "CashierInterop", "amount": {"currency": "USD", "value": 6000}, "reference": "c1"},
    held.message["pspReference"],
)
check(capture.message["status"] == "received", "adyen capture: %s" % capture.message)
other = adyen_pay(sandbox.mint("70.00"), 7000, "interop-adyen-3", manual=True)
cancel = modifications.cancel_authorised_payment_by_psp_reference(
    {"merchantAccount": "CashierInterop", "reference": "v1"}, other.message["pspReference"]
)
check(cancel.message["status"] == "received", "adyen cancel: %s" % cancel.message)
methods = adyen.checkout.payments_api.payment_methods({"merchantAccount": "CashierInterop"})
check(any(m["type"] == "applepay" for m in methods.message["paymentMethods"]), "adyen paymentMethods: %s" % methods.message)
reversed_ = modifications.refund_or_cancel_payment(
    {"merchantAccount": "CashierInterop", "reference": "rv1"}, adyen_pay(sandbox.mint("11.00"), 1100, "interop-adyen-5", manual=True).message["pspReference"]
)
check(reversed_.message["status"] == "received", "adyen reversal: %s" % reversed_.message)
refused = adyen_pay(sandbox.mint("10.00", card="4000000000000069"), 1000, "interop-adyen-4")
check(refused.message["resultCode"] == "Refused" and refused.message["refusalReason"] == "Expired Card", "adyen decline: %s" % refused.message)
summary["adyen_refusal"] = refused.message["refusalReason"]

# The SDK's /payments body, field by field, against the one Cashier's AdyenProcessor builds for
# the same payment.
cashier = config["cashier_adyen_body"]
token = json.loads(base64.b64decode(cashier["paymentMethod"]["applePayToken"]))
built = adyen_pay({"paymentData": token}, cashier["amount"]["value"], cashier["reference"], account=cashier["merchantAccount"])
sent = request_body(built.raw_request)
sent["paymentMethod"]["applePayToken"] = json.loads(base64.b64decode(sent["paymentMethod"]["applePayToken"]))
cashier["paymentMethod"]["applePayToken"] = token
differing = differing_fields(sent, cashier)
check(not differing, "the Adyen SDK's body differs from Cashier's in %s" % differing)
summary["adyen_body_fields"] = sorted(sent)
summary["adyen_psp"] = psp

print(json.dumps(summary))
