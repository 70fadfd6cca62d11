import CashierClient
import Foundation
import Testing

/// The hand-off every wallet SDK's glue waits on (WeChat's `onResp`, UnionPay's plugin delegate
/// and reopened URL): one answer for the hand-off waiting, a superseded one answered at once.
@Suite struct WalletHandoffTests {
    @Test func theAnswerReachesTheHandoffWaiting() async {
        let handoff = WalletHandoff<String>()
        let answer = await handoff.wait(supersededWith: "superseded") { handoff.deliver("paid") }
        #expect(answer == "paid")
        handoff.deliver("late")  // nothing waits: dropped, no crash
    }

    @Test func aSecondHandoffAnswersTheFirstAsSuperseded() async {
        let handoff = WalletHandoff<String>()
        let (firstStarted, started) = AsyncStream.makeStream(of: Void.self)
        let first = Task { await handoff.wait(supersededWith: "superseded") { started.yield() } }
        for await _ in firstStarted { break }
        let second = await handoff.wait(supersededWith: "superseded") { handoff.deliver("paid") }
        #expect(await first.value == "superseded")
        #expect(second == "paid")
    }
}
