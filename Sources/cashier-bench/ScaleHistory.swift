import Cashier
import CashierStore
import Foundation

/// The history `cashier-bench scale` writes: `count` orders over the two years before `end`,
/// each a pure function of its number (so the bills, cursors and searches of the measures can
/// name any of them without reading the store back).
///
/// The mix: five merchants (half the orders the largest's, one a twentieth); payments by
/// WeChat Pay (v2 and v3, half of them), Alipay (a third), Apple Pay and UnionPay; 3 % never
/// paid; of the paid, 5 % refunded — a third in full, the rest in one or two partial refunds;
/// 1 % of `order.paid` webhooks still waiting in the outbox.
struct ScaleHistory: Sendable {
    let count: Int
    let end: Date

    static let span: TimeInterval = 730 * 86_400
    static let merchants = ["shop_a", "shop_b", "shop_c", "shop_d", "shop_e"]

    var start: Date { end.addingTimeInterval(-Self.span) }

    /// Order `index`'s id and numbers.
    static func orderID(_ index: Int) -> String { "ord_scale_\(index)" }
    static func outTradeNo(_ index: Int) -> String { "CS" + String(100_000_000_000 + index) }

    /// A well-mixed 64-bit hash of `index` and `salt` (splitmix64), for every choice of the mix.
    static func hash(_ index: Int, _ salt: UInt64) -> UInt64 {
        var z = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 &+ salt &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// When order `index` was created: evenly through the span, in creation order.
    func createdAt(_ index: Int) -> Date {
        start.addingTimeInterval(Self.span * Double(index) / Double(max(count, 1)))
    }

    /// Order `index`, whole.
    func order(_ index: Int) -> HistoricalOrder {
        let created = createdAt(index)
        let merchant: String
        switch Self.hash(index, 1) % 20 {
        case 0..<10: merchant = Self.merchants[0]
        case 10..<15: merchant = Self.merchants[1]
        case 15..<18: merchant = Self.merchants[2]
        case 18: merchant = Self.merchants[3]
        default: merchant = Self.merchants[4]
        }
        let (method, provider) = Self.payment(Self.hash(index, 2) % 100)
        let total = Int64(100 + Self.hash(index, 3) % 49_900)
        let paid = Self.hash(index, 4) % 100 >= 3
        let paidAt = paid ? created.addingTimeInterval(30) : nil
        var refunds: [HistoricalOrder.Refund] = []
        let refundRoll = Self.hash(index, 5) % 300
        if paid, refundRoll < 15 {
            let day = created.addingTimeInterval(86_400 * Double(1 + refundRoll % 7))
            switch refundRoll % 3 {
            case 0: refunds = [.init(amount: total, at: day)]
            case 1: refunds = [.init(amount: max(1, total / 3), at: day)]
            default:
                refunds = [.init(amount: max(1, total / 4), at: day), .init(amount: max(1, total / 4), at: day.addingTimeInterval(3600))]
            }
        }
        return HistoricalOrder(
            id: Self.orderID(index), outTradeNo: Self.outTradeNo(index), merchant: merchant, createdAt: created,
            total: Money(minorUnits: total, currency: .cny), method: method, provider: provider,
            transactionID: paid ? Self.transactionID(index, wallet: method.wallet) : nil, paidAt: paidAt, refunds: refunds,
            webhookDelivered: Self.hash(index, 6) % 100 != 0)
    }

    /// The provider's transaction id of order `index`'s payment, in the shape each wallet gives.
    static func transactionID(_ index: Int, wallet: PaymentMethod.Wallet) -> String {
        let digits = String(10_000_000_000_000 + index)
        switch wallet {
        case .wechat: return "42000" + digits + "0000000000"
        case .alipay: return "2026" + digits + "00000000"
        case .applePay: return "pi_" + digits
        case .unionpay: return "UP" + digits
        }
    }

    /// Half WeChat Pay (three in five by API v2), a third Alipay, a tenth Apple Pay, the rest UnionPay.
    static func payment(_ roll: UInt64) -> (PaymentMethod, PaymentProvider) {
        switch roll {
        case 0..<20: (.wechatApp, .wechatV2)
        case 20..<30: (.wechatJSAPI, .wechatV2)
        case 30..<40: (.wechatNative, .wechatV3)
        case 40..<50: (.wechatApp, .wechatV3)
        case 50..<70: (.alipayApp, .alipay)
        case 70..<80: (.alipayWap, .alipay)
        case 80..<85: (.alipayQR, .alipay)
        case 85..<95: (.applePay, .applePay)
        default: (.unionpayApp, .unionpay)
        }
    }

    /// Writes every order, `batch` to a transaction.
    /// - Returns: the seconds it took.
    func fill(_ store: any SQLOrderStore, batch: Int = 20_000) async throws -> Double {
        let clock = ContinuousClock()
        let started = clock.now
        var next = 0
        while next < count {
            let upper = min(next + batch, count)
            try await store.insertHistory((next..<upper).map(order))
            next = upper
        }
        return (clock.now - started) / .seconds(1)
    }
}
