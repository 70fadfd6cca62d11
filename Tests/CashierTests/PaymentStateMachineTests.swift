import Testing

@testable import Cashier

@Suite struct PaymentStateMachineTests {
    /// The table is the specification: every pair is checked against it.
    static let legal: Set<String> = [
        "created>pending", "pending>pending", "failed>pending",
        "created>paid", "pending>paid", "failed>paid", "closed>paid",
        "pending>failed",
        "created>closed", "pending>closed", "failed>closed",
        "paid>partially_refunded", "partially_refunded>partially_refunded", "paid>refunded", "partially_refunded>refunded",
        "refunded>partially_refunded", "refunded>paid", "partially_refunded>paid",
    ]

    @Test func everyPairIsLegalExactlyWhenListed() {
        for from in PaymentStatus.allCases {
            for to in PaymentStatus.allCases {
                let key = "\(from.rawValue)>\(to.rawValue)"
                #expect(PaymentStateMachine.isLegal(from: from, to: to) == Self.legal.contains(key), "\(key)")
            }
        }
    }

    @Test func moneyNeverLeavesTheReceivedStates() {
        for transition in PaymentStateMachine.transitions where transition.from.hasReceivedMoney {
            #expect(transition.to.hasReceivedMoney, "\(transition)")
        }
        // A refunded order moves only when a refund fails after all.
        #expect(Set(PaymentStateMachine.events(from: .refunded)) == [.refundFailed, .allRefundsFailed])
    }

    @Test func theEventBetweenTwoStatusesIsFound() {
        #expect(PaymentStateMachine.event(from: .created, to: .pending) == .paymentStarted)
        #expect(PaymentStateMachine.event(from: .refunded, to: .paid) == .allRefundsFailed)
        #expect(PaymentStateMachine.event(from: .paid, to: .created) == nil)
    }

    /// The order's status from its records: settlement first, then closing, then attempts.
    @Test func statusIsDerivedFromTheRecords() {
        typealias Settlement = PaymentStatus.Settlement
        func derived(_ attempts: [PaymentAttemptStatus], settled: Settlement? = nil, closed: Bool = false, started: Bool = true)
            -> PaymentStatus
        {
            PaymentStatus.derived(settled: settled, closed: closed, attempts: attempts, everStarted: started)
        }
        #expect(derived([], started: false) == .created)
        #expect(derived([.created], started: false) == .created)  // reserved, never placed
        #expect(derived([.failed], started: false) == .created)  // refused when placed
        #expect(derived([.closed, .pending]) == .pending)
        #expect(derived([.processing]) == .pending)
        #expect(derived([.failed, .closed, .created]) == .failed)
        #expect(derived([.pending], closed: true) == .closed)
        #expect(derived([.succeeded], settled: Settlement(amount: 100, refunded: 0), closed: true) == .paid)
        #expect(derived([], settled: Settlement(amount: 100, refunded: 1)) == .partiallyRefunded)
        #expect(derived([], settled: Settlement(amount: 100, refunded: 100)) == .refunded)
    }

    /// Attempts and refunds: success is accepted from anywhere but itself, nothing leaves it.
    @Test func attemptsAndRefundsMoveOnlyForward() {
        for status in PaymentAttemptStatus.allCases {
            #expect(status.canMove(to: .succeeded) == (status != .succeeded), "\(status)")
            #expect(!PaymentAttemptStatus.succeeded.canMove(to: status))
        }
        #expect(!PaymentAttemptStatus.closed.canMove(to: .pending) && PaymentAttemptStatus.pending.canMove(to: .processing))
        // A processor that accepted an authorisation without deciding it: back to waiting, never to `created`.
        #expect(PaymentAttemptStatus.processing.canMove(to: .pending) && !PaymentAttemptStatus.processing.canMove(to: .created))
        #expect(!PaymentAttemptStatus.failed.canMove(to: .pending) && !PaymentAttemptStatus.closed.canMove(to: .processing))
        #expect(RefundStatus.pending.canMove(to: .succeeded) && RefundStatus.succeeded.canMove(to: .failed))
        #expect(!RefundStatus.failed.canMove(to: .succeeded) && !RefundStatus.failed.canMove(to: .pending))
        #expect(PaymentMethod.allCases.map(\.wallet).filter { $0 == .wechat }.count == 6)
        #expect(PaymentMethod.allCases.filter(\.isBarcode) == [.wechatBarcode, .alipayBarcode])
        #expect(PaymentProvider.wechatV3.wallet == .wechat && PaymentMethod(rawValue: "alipay.qr")?.wallet == .alipay)
    }

    @Test func onlyALateArrivalRequiresARefund() {
        let flagged = PaymentStateMachine.transitions.filter(\.requiresRefund)
        #expect(flagged.map(\.description) == ["closed --payment_succeeded--> paid [refund_required]"])
    }

    @Test func eventsAreDeterministic() throws {
        for status in PaymentStatus.allCases {
            let events = PaymentStateMachine.events(from: status)
            #expect(Set(events).count == events.count)
        }
        #expect(try PaymentStateMachine.transition(from: .pending, on: .paymentSucceeded).to == .paid)
        let error = #expect(throws: MoneyError.self) { try PaymentStateMachine.transition(from: .paid, on: .closed) }
        #expect(error?.code == .illegalTransition)
        #expect(error?.message == "an order that is paid cannot take the event closed")
    }

    @Test func jsonNames() {
        #expect(
            PaymentStatus.allCases.map(\.rawValue) == ["created", "pending", "paid", "partially_refunded", "refunded", "closed", "failed"])
    }
}
