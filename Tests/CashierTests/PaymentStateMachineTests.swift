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
        #expect(PaymentStateMachine.events(from: .refunded).isEmpty)
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
