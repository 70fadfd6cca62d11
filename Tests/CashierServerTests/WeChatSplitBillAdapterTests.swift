import Cashier
import CashierSandbox
import Foundation
import Testing

@testable import CashierServer
@testable import CashierStore

/// `WeChatV3Adapter.splitBill(date:)` against the v3 sandbox: the day's profit-sharing bill as
/// `SplitBillLine`s (a finished split's share, with its number, account, fen and state), and `[]`
/// for a day WeChat has no bill for (`NO_STATEMENT_EXIST`).
@Suite struct WeChatSplitBillAdapterTests {
    @Test(.timeLimit(.minutes(3))) func theDaysBillIsReadAsLinesAndADayWithoutIsEmpty() async throws {
        let world = try await MatrixWorld()
        let made = try await world.split()
        let stored = try #require(try await world.fixture.store.split(id: made.splitID))
        let adapter = try #require(world.fixture.server.app.ledger.adapters.splitting(.wechatV3))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Asia/Shanghai")
        formatter.dateFormat = "yyyy-MM-dd"
        let lines = try #require(try await adapter.splitBill(date: formatter.string(from: Date())))
        let share = try #require(stored.shares.first)
        #expect(
            lines.filter { $0.outOrderNo == stored.outOrderNo } == [
                SplitBillLine(
                    kind: .share, outOrderNo: stored.outOrderNo, outReturnNo: nil, account: share.account, amountMinor: 100,
                    state: "SUCCESS")
            ])
        #expect(try await adapter.splitBill(date: "2001-01-01") == [])
        await world.stop()
    }
}
