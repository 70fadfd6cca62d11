import Foundation
import Testing

@testable import Cashier

@Suite struct OrderTests {
    static func yuan(_ text: String) -> Money { try! Money(decimal: text, currency: .cny) }

    static func summary() throws -> PaymentSummary {
        try PaymentSummary(
            items: [
                LineItem(label: "Latte", unitAmount: yuan("28.00"), quantity: 2),
                LineItem(label: "Coupon", unitAmount: yuan("-5.00")),
                LineItem(label: "Tax", unitAmount: yuan("1.50"), kind: .pending),
            ],
            totalLabel: "Example Coffee Co.")
    }

    @Test func totalIsTheSumIncludingDiscounts() throws {
        let summary = try Self.summary()
        #expect(summary.total == Self.yuan("52.50"))
        #expect(summary.items[1].isDiscount)
        #expect(summary.items[0].amount == Self.yuan("56.00"))
        #expect(summary.totalKind == .pending)
        #expect(summary.currency == .cny)
    }

    @Test func summaryRules() throws {
        let mixed = #expect(throws: MoneyError.self) {
            try PaymentSummary(
                items: [
                    LineItem(label: "A", unitAmount: Self.yuan("1.00")),
                    LineItem(label: "B", unitAmount: Money(minorUnits: 100, currency: .usd)),
                ],
                totalLabel: "Shop")
        }
        #expect(mixed?.code == .currencyMismatch)
        let negative = #expect(throws: MoneyError.self) {
            try PaymentSummary(
                items: [LineItem(label: "A", unitAmount: Self.yuan("1.00")), LineItem(label: "Coupon", unitAmount: Self.yuan("-2.00"))],
                totalLabel: "Shop")
        }
        #expect(negative?.code == .invalidTotal)
        #expect(throws: MoneyError.self) { try PaymentSummary(items: [], totalLabel: "Shop") }
        #expect(throws: MoneyError.self) {
            try PaymentSummary(items: [LineItem(label: "A", unitAmount: Self.yuan("1.00"))], totalLabel: " ")
        }
        #expect(throws: MoneyError.self) { try LineItem(label: "A", unitAmount: Self.yuan("1.00"), quantity: 0) }
        #expect(throws: MoneyError.self) { try LineItem(label: "", unitAmount: Self.yuan("1.00")) }
        #expect(throws: MoneyError.self) { try LineItem(label: "A", unitAmount: Money(minorUnits: .max, currency: .cny), quantity: 2) }
    }

    @Test func summaryJSONRejectsAWrongTotal() throws {
        let encoded = try JSONEncoder().encode(try Self.summary())
        #expect(try JSONDecoder().decode(PaymentSummary.self, from: encoded) == Self.summary())
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        object["total"] = ["amount": "1.00", "currency": "CNY"]
        let tampered = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: MoneyError.self) { try JSONDecoder().decode(PaymentSummary.self, from: tampered) }
    }

    @Test func shippingMethods() throws {
        let express = try ShippingMethod(identifier: "express", label: "Express", detail: "Tomorrow", amount: Self.yuan("12.00"))
        let free = try ShippingMethod(identifier: "free", label: "Standard", amount: .zero(.cny))
        try ShippingMethod.validateUnique([express, free])
        let duplicate = #expect(throws: MoneyError.self) { try ShippingMethod.validateUnique([express, free, express]) }
        #expect(duplicate?.message.contains("express") == true)
        #expect(throws: MoneyError.self) { try ShippingMethod(identifier: "x", label: "X", amount: Self.yuan("-1.00")) }
        #expect(try express.lineItem().amount == Self.yuan("12.00"))
        let decoded = try JSONDecoder().decode(ShippingMethod.self, from: JSONEncoder().encode(express))
        #expect(decoded == express)
    }

    @Test func ordersFollowTheStateMachine() throws {
        var order = try Order(summary: Self.summary(), description: "2 lattes")
        #expect(order.status == .created)
        #expect(order.id.hasPrefix("ord_") && order.id.count == 28)
        try order.apply(.paymentStarted)
        try order.apply(.paymentSucceeded)
        #expect(order.status == .paid)
        #expect(throws: MoneyError.self) { try order.apply(.paymentSucceeded) }
        #expect(throws: MoneyError.self) { try order.apply(.closed) }
        #expect(order.status == .paid)
        try order.apply(.partiallyRefunded)
        try order.apply(.refunded)
        #expect(order.status == .refunded)
        #expect(!order.refundRequired)
    }

    @Test func paymentForAClosedOrderIsKeptAndFlagged() throws {
        var order = try Order(summary: Self.summary(), description: "late payment")
        try order.apply(.closed)
        let step = try order.apply(.paymentSucceeded)
        #expect(step.requiresRefund)
        #expect(order.status == .paid)
        #expect(order.refundRequired)
    }

    @Test func orderRules() throws {
        let summary = try Self.summary()
        #expect(throws: MoneyError.self) { try Order(outTradeNo: "has space", summary: summary, description: "x") }
        #expect(throws: MoneyError.self) { try Order(summary: summary, description: "") }
        #expect(throws: MoneyError.self) { try Order(summary: summary, description: String(repeating: "付", count: 43)) }
        #expect(throws: MoneyError.self) {
            try Order(summary: summary, description: "x", metadata: Dictionary(uniqueKeysWithValues: (0..<21).map { ("k\($0)", "v") }))
        }
        let now = Date()
        #expect(throws: MoneyError.self) { try Order(summary: summary, description: "x", createdAt: now, expiresAt: now) }
        let free = try PaymentSummary(items: [LineItem(label: "Gift", unitAmount: .zero(.cny))], totalLabel: "Shop")
        let zero = #expect(throws: MoneyError.self) { try Order(summary: free, description: "x") }
        #expect(zero?.code == .invalidTotal)
        let expiring = try Order(summary: summary, description: "x", createdAt: now, expiresAt: now.addingTimeInterval(60))
        #expect(!expiring.isExpired(at: now))
        #expect(expiring.isExpired(at: now.addingTimeInterval(60)))
    }

    @Test func orderJSONUsesSnakeCase() throws {
        let order = try Order(outTradeNo: "T123", summary: Self.summary(), description: "2 lattes", metadata: ["table": "7"])
        let json = String(decoding: try JSONEncoder().encode(order), as: UTF8.self)
        #expect(json.contains(#""out_trade_no":"T123""#))
        #expect(json.contains(#""status":"created""#))
        #expect(json.contains(#""refund_required":false"#))
        #expect(try JSONDecoder().decode(Order.self, from: Data(json.utf8)) == order)
    }
}
