#!/usr/bin/env python3
"""Apple Pay recurring payments through Stripe's and Adyen's own Python SDKs (PyPI `stripe` 16.x,
`Adyen` 16.x) against Cashier's sandbox, unmodified: a first customer-initiated payment stores
the card (Stripe: a Customer and `setup_future_usage='off_session'`; Adyen: `storePaymentMethod`
with a `shopperReference` and `recurringProcessingModel`), merchant-initiated charges take it
again (Stripe `off_session=True`; Adyen `storedPaymentMethodId` with `shopperInteraction`
`ContAuth`), meet declines, and the card is removed (Stripe's detach, Adyen's token deletion).
Reads {"sandbox": "http://127.0.0.1:PORT/", "cashier_adyen_charge_body": {...}} on stdin and
prints a JSON summary; any broken expectation exits non-zero with the reason on stderr."""
import base64
import json
import queue

import stripe
from Adyen.exceptions import AdyenAPIUnprocessableEntity

from processor_sdks import (CardError, InvalidRequestError, adyen_client, check, differing_fields, fail, point_stripe,
                            read_config, receive_stripe_events, request_body, stripe_token)

config, sandbox = read_config()
summary = {}

# --- Stripe: a Customer, setup_future_usage, then off_session ----------------------------------
point_stripe(sandbox)

# Stripe's events for what follows, verified with Stripe's own signature check.
events, endpoint = receive_stripe_events(sandbox, "whsec_recurring_0123456789")

token = stripe_token(sandbox.mint("10.00"))
customer = stripe.Customer.create(description="agr_interop", metadata={"cashier_shopper": "agr_interop"})
check(customer.id.startswith("cus_") and customer.metadata["cashier_shopper"] == "agr_interop", "customer: %s" % customer)
first = stripe.PaymentIntent.create(
    amount=1000,
    currency="usd",
    customer=customer.id,
    payment_method_data={"type": "card", "card": {"token": token.id}},
    setup_future_usage="off_session",
    confirm=True,
    metadata={"cashier_payment": "interop-first"},
    idempotency_key="interop-first",
)
check(first.status == "succeeded" and first.customer == customer.id, "first payment: %s" % first)
method = stripe.PaymentMethod.retrieve(first.payment_method)
check(method.id.startswith("pm_") and method.customer == customer.id, "stored method: %s" % method)
listed = stripe.PaymentMethod.list(customer=customer.id, type="card")
check([m.id for m in listed.data] == [method.id], "customer's methods: %s" % listed)


def off_session(amount, key):
    return stripe.PaymentIntent.create(
        amount=amount,
        currency="usd",
        customer=customer.id,
        payment_method=method.id,
        off_session=True,
        confirm=True,
        metadata={"cashier_payment": key},
        idempotency_key=key,
    )


later = off_session(990, "interop-mit-1")
check(later.status == "succeeded" and later.amount_received == 990 and later.id != first.id, "off_session: %s" % later)
check(off_session(990, "interop-mit-1").id == later.id, "the same Idempotency-Key charged again")
sandbox.post("sandbox/stripe/payment_methods/%s/decline" % method.id, {"code": "insufficient_funds"})
try:
    off_session(990, "interop-mit-2")
    fail("the stored card was charged through an insufficient_funds decline")
except CardError as error:
    check(error.code == "card_declined" and error.error.decline_code == "insufficient_funds", "decline: %s" % error.error)
    check(error.error.payment_intent.status == "requires_payment_method", "declined intent: %s" % error.error.payment_intent)
    summary["stripe_mit_decline"] = error.error.decline_code
    declined = [error.error.payment_intent.id]
check(off_session(990, "interop-mit-3").status == "succeeded", "the charge after a decline")
sandbox.post("sandbox/stripe/payment_methods/%s/decline" % method.id, {"code": "authentication_required"})
try:
    off_session(990, "interop-mit-4")
    fail("a charge needing the payer passed without them")
except CardError as error:
    check(error.code == "authentication_required", "authentication: %s" % error.error)
    declined.append(error.error.payment_intent.id)
    summary["stripe_mit_authentication"] = error.code
detached = stripe.PaymentMethod.detach(method.id)
check(detached.customer is None, "detach: %s" % detached)
try:
    off_session(990, "interop-mit-5")
    fail("a detached card was charged")
except InvalidRequestError as error:
    check(error.param == "payment_method", "detached: %s" % error)
    summary["stripe_detached"] = error.code
try:
    stripe.PaymentIntent.create(amount=990, currency="usd", customer=customer.id, off_session=True, confirm=True)
    fail("off_session without a stored method was accepted")
except InvalidRequestError as error:
    check(error.param == "payment_method", "no method: %s" % error)

expected = {
    ("payment_method.attached", method.id),
    ("payment_intent.succeeded", later.id),
    ("payment_method.detached", method.id),
} | {("payment_intent.payment_failed", intent) for intent in declined}
received = set()
while not expected <= received:
    try:
        event = events.get(timeout=10)
    except queue.Empty:
        fail("Stripe events missing: %s (received %s)" % (sorted(expected - received), sorted(received)))
    check(isinstance(event, stripe.Event), "the SDK refused the sandbox's signature: %s" % event)
    received.add((event.type, event.data.object.id))
    if event.type == "payment_intent.payment_failed":
        check(event.data.object.last_payment_error.message, "payment_failed without its error: %s" % event)
endpoint.shutdown()
summary["stripe_recurring_events"] = sorted({kind for kind, _ in received})

# --- Adyen: storePaymentMethod, then storedPaymentMethodId with ContAuth ------------------------
adyen = adyen_client(sandbox)
account = "CashierInterop"
shopper = "agr_interop_adyen"

stored = adyen.checkout.payments_api.payments(
    {
        "amount": {"currency": "USD", "value": 1000},
        "reference": "interop-adyen-first",
        "merchantAccount": account,
        "paymentMethod": {
            "type": "applepay",
            "applePayToken": base64.b64encode(json.dumps(sandbox.mint("10.00")["paymentData"]).encode()).decode(),
        },
        "shopperInteraction": "Ecommerce",
        "storePaymentMethod": True,
        "shopperReference": shopper,
        "recurringProcessingModel": "Subscription",
    },
    idempotency_key="interop-adyen-first",
)
check(stored.message["resultCode"] == "Authorised", "adyen first payment: %s" % stored.message)
additional = stored.message["additionalData"]
token_id = additional["tokenization.storedPaymentMethodId"]
check(additional["recurring.recurringDetailReference"] == token_id and additional["tokenization.shopperReference"] == shopper, "adyen token: %s" % additional)


def contauth(value, reference, shopper_reference=shopper):
    return adyen.checkout.payments_api.payments(
        {
            "amount": {"currency": "USD", "value": value},
            "reference": reference,
            "merchantAccount": account,
            "paymentMethod": {"type": "applepay", "storedPaymentMethodId": token_id},
            "shopperReference": shopper_reference,
            "shopperInteraction": "ContAuth",
            "recurringProcessingModel": "Subscription",
        },
        idempotency_key=reference,
    )


charged = contauth(990, "interop-adyen-2")
check(charged.message["resultCode"] == "Authorised" and charged.message["pspReference"] != stored.message["pspReference"], "adyen ContAuth: %s" % charged.message)
sandbox.post("sandbox/adyen/stored_payment_methods/%s/decline" % token_id, {"code": "insufficient_funds"})
refused = contauth(990, "interop-adyen-3")
check(refused.message["resultCode"] == "Refused" and refused.message["refusalReason"] == "Not enough balance", "adyen decline: %s" % refused.message)
summary["adyen_mit_refusal"] = refused.message["refusalReason"]
try:
    contauth(990, "interop-adyen-4", shopper_reference="someone_else")
    fail("another shopper's token was charged")
except AdyenAPIUnprocessableEntity as error:
    check(error.error_code == "800", "another shopper: %s" % error)
tokens = adyen.checkout.recurring_api.get_tokens_for_stored_payment_details(
    query_parameters={"merchantAccount": account, "shopperReference": shopper}
)
check([m["id"] for m in tokens.message["storedPaymentMethods"]] == [token_id], "adyen tokens: %s" % tokens.message)
adyen.checkout.recurring_api.delete_token_for_stored_payment_details(
    token_id, query_parameters={"merchantAccount": account, "shopperReference": shopper}
)
after = adyen.checkout.recurring_api.get_tokens_for_stored_payment_details(
    query_parameters={"merchantAccount": account, "shopperReference": shopper}
)
check(after.message["storedPaymentMethods"] == [], "adyen tokens after delete: %s" % after.message)
try:
    contauth(990, "interop-adyen-5")
    fail("a deleted token was charged")
except AdyenAPIUnprocessableEntity as error:
    summary["adyen_deleted"] = error.error_code

# The SDK's ContAuth body, field by field, against the one Cashier's AdyenProcessor builds.
cashier = config["cashier_adyen_charge_body"]
token_id = cashier["paymentMethod"]["storedPaymentMethodId"]
try:
    built = adyen.checkout.payments_api.payments(
        {
            "amount": cashier["amount"],
            "reference": cashier["reference"],
            "merchantAccount": cashier["merchantAccount"],
            "paymentMethod": {"type": "applepay", "storedPaymentMethodId": token_id},
            "shopperReference": cashier["shopperReference"],
            "shopperInteraction": "ContAuth",
            "recurringProcessingModel": "Subscription",
        }
    )
    sent = built.raw_request
except AdyenAPIUnprocessableEntity as error:  # the token is Cashier's made-up one: the body is what counts
    sent = error.raw_request
sent = request_body(sent)
differing = differing_fields(sent, cashier)
check(not differing, "the Adyen SDK's ContAuth body differs from Cashier's in %s" % differing)
summary["adyen_charge_fields"] = sorted(sent)

print(json.dumps(summary))
