import Cashier
import Foundation

extension StoredOrder {
    /// A paid order of 25.50 CNY, for documentation (the OpenAPI document's examples).
    public static let example = StoredOrder(
        id: "ord_2b9f0c4e8d1a4f6b", outTradeNo: "C20261201143000A1B2", status: .paid,
        total: Money(minorUnits: 2550, currency: .cny), refunded: Money(minorUnits: 550, currency: .cny), description: "Latte ×2",
        metadataJSON: #"{"cart":"8812"}"#, itemsJSON: "[]", clientSecret: "ord_2b9f0c4e8d1a4f6b_secret_3qZk9xV2", refundRequired: false,
        version: 4, createdAt: Date(timeIntervalSince1970: 1_796_113_800), expiresAt: Date(timeIntervalSince1970: 1_796_121_000),
        settledPaymentID: "pay_6c1e2d3f4a5b6c7d", returnURL: "https://shop.example.com/orders/8812")
}
