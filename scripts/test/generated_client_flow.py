"""The order → payment → paid → refund flow through a client generated from the OpenAPI document.

Run by scripts/test/generated_client, with the generated `cashier_client` package on the path.
Prints one line per step and `N passed, M failed`; exits 1 on any failure.
"""
import sys
import uuid

from cashier_client import AuthenticatedClient, Client
from cashier_client.api.orders import create_order, get_order, list_order_events
from cashier_client.api.payments import start_payment
from cashier_client.api.refunds import refund_order
from cashier_client.api.books import list_refunds
from cashier_client.api.sandbox import sandbox_pay_order
from cashier_client.api.server import health
from cashier_client.models import (
    Currency,
    Error,
    Order,
    OrderRequest,
    OrderRequestItemType1,
    OrderStatus,
    OrderWithRefund,
    PaymentStart,
    RedirectPaymentRequest,
    RedirectPaymentRequestMethod,
    RefundRequest,
    WalletPaymentRequest,
    WalletPaymentRequestMethod,
)

url, secret = sys.argv[1], sys.argv[2]
client = AuthenticatedClient(base_url=url, token=secret, raise_on_unexpected_status=True)
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(("  ok    " if ok else "  FAIL  ") + name + ("" if ok else f"  ({detail})"))


check("health answers", health.sync(client=Client(base_url=url)).status == "ok")

key = str(uuid.uuid4())
body = OrderRequest(
    items=[OrderRequestItemType1(label="Latte", amount="12.75", quantity=2)],
    currency=Currency.CNY,
    description="generated client",
    metadata=None,
)
order = create_order.sync(client=client, body=body, idempotency_key=key)
check("an order is created", isinstance(order, Order) and order.status == OrderStatus.CREATED, order)
check("its amount is exact", order.amount.amount == "25.50" and order.amount.amount_minor == 2550, order.amount)
again = create_order.sync(client=client, body=body, idempotency_key=key)
check("the same Idempotency-Key answers the same order", isinstance(again, Order) and again.id == order.id, again)

started = start_payment.sync(order.id, client=client, body=WalletPaymentRequest(method=WalletPaymentRequestMethod.WECHAT_NATIVE))
check(
    "a WeChat Pay native payment starts",
    isinstance(started, PaymentStart) and started.code_url.startswith("weixin://"),
    started,
)

# The document's branch per method: Alipay's redirect methods cannot be built without return_url.
try:
    RedirectPaymentRequest(method=RedirectPaymentRequestMethod.ALIPAY_PAGE)
    check("a redirect payment needs its return_url in the client's types", False, "built without one")
except TypeError:
    check("a redirect payment needs its return_url in the client's types", True)

paid = sandbox_pay_order.sync(order.id, client=client)
check("the sandbox pays it and the notification lands", isinstance(paid, Order) and paid.status == OrderStatus.PAID, paid)
read = get_order.sync(order.id, client=client)
check(
    "the order reads paid, its payment succeeded",
    isinstance(read, Order) and read.status == OrderStatus.PAID and read.payments[0].status.value == "succeeded",
    read,
)

refunded = refund_order.sync(order.id, client=client, body=RefundRequest(amount="5.50", reason="one was cold"))
check(
    "a part is refunded",
    isinstance(refunded, OrderWithRefund) and refunded.refund.amount.amount_minor == 550,
    refunded,
)
after = get_order.sync(order.id, client=client)
check(
    "the order shows what went back",
    after.amount_refunded.amount_minor == 550 and after.status in (OrderStatus.PARTIALLY_REFUNDED, OrderStatus.PAID),
    after.status,
)
too_much = refund_order.sync(order.id, client=client, body=RefundRequest(amount="100.00"))
check("a refund past what is left is refused with an Error", isinstance(too_much, Error) and too_much.error.code, too_much)

listed = list_refunds.sync(client=client, q=order.id)
check("the refund is listed", any(r.order_id == order.id for r in listed.data), listed)
events = list_order_events.sync(order.id, client=client)
check("the event log has the story", len(events.data) >= 3, events)

bad = create_order.sync(client=client, body=OrderRequest(items=[OrderRequestItemType1(label="Tea", amount="1.005")], currency=Currency.CNY))
check("too many decimals for CNY: an Error naming the field", isinstance(bad, Error) and "items[0].amount" in bad.error.message, bad)

failed = results.count(False)
print(f"{len(results) - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
