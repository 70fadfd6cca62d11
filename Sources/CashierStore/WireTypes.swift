public import CashierWire

// The JSON types moved to `CashierWire`, which the app SDK shares with the server; the names stay
// here for one release so code that imports only `CashierStore` still compiles.

/// A payment attempt as the merchant API and webhooks show it (`CashierWire.PaymentJSON`).
public typealias PaymentJSON = CashierWire.PaymentJSON

/// A refund as the merchant API and webhooks show it (`CashierWire.RefundJSON`).
public typealias RefundJSON = CashierWire.RefundJSON

/// A dispute as an `order.disputed` webhook shows it (`CashierWire.DisputeJSON`).
public typealias DisputeJSON = CashierWire.DisputeJSON

/// What a webhook delivers (`CashierWire.WebhookEventJSON`).
public typealias WebhookEventJSON = CashierWire.WebhookEventJSON
