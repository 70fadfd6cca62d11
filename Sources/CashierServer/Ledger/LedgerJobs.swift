import Cashier
import CashierStore
import Foundation

/// The background jobs' work: the query fallback for payments whose notification is late or
/// lost, the refund job for refunds whose answer was lost (and duplicates to send back). A job
/// whose task is cancelled (the server is stopping) stops between items, the one in hand
/// finished.
struct LedgerJobs: Sendable {
    let ledger: Ledger
    var store: any OrderStore { ledger.store }
    var configuration: MerchantConfiguration { ledger.configuration }

    /// The query-fallback job: every pending payment past ``MerchantConfiguration/queryAfter``
    /// whose turn has come is asked about at its provider; one still unpaid waits twice as long
    /// before the next question. - Returns: how many were found paid.
    @discardableResult
    func queryPending(schedule: QueryFallbackSchedule, limit: Int = 100) async throws -> Int {
        let now = ledger.clock.now()
        let pending = try await store.pendingPayments(startedBefore: now.addingTimeInterval(-configuration.queryAfter), limit: limit)
        schedule.keep(only: Set(pending.map(\.id)))
        var paid = 0
        for payment in pending where schedule.isDue(payment.id, now: now) {
            guard !Task.isCancelled else { break }
            // A counter payment nobody is following any more (its instance stopped): given up at its deadline.
            if payment.method.isBarcode, payment.createdAt.addingTimeInterval(configuration.barcode.giveUpAfter + 5) < now {
                await ledger.counter.giveUp(payment)
                continue
            }
            let answered = try? await ledger.payments.ask(payment)
            // Paid here means the notification had not come: /metrics' query fallback rate.
            let result = answered.map { $0.status.hasReceivedMoney ? "paid" : "unpaid" } ?? "error"
            ledger.metrics.increment("cashier_query_fallback_total", ["result": result])
            if let answered, answered.status.hasReceivedMoney {
                paid += 1
            } else {
                schedule.backOff(payment.id, now: now, first: configuration.queryAfter)
            }
        }
        return paid
    }

    /// The refund job: refunds still pending past ``MerchantConfiguration/refundCheckAfter``
    /// (the provider's answer was lost) are asked about — one the provider never received is
    /// sent again under its number —, accepted ones not yet confirmed are asked whether they
    /// went through, and, when the merchant wants it, payments that paid an order a second time
    /// are refunded in full. - Returns: how many refunds were settled.
    @discardableResult
    func settleRefunds(limit: Int = 50) async throws -> Int {
        let refunds = ledger.refunds
        var settled = 0
        let cutoff = ledger.clock.now().addingTimeInterval(-configuration.refundCheckAfter)
        for refund in try await store.pendingRefunds(createdBefore: cutoff, limit: limit) {
            guard !Task.isCancelled else { break }
            guard let payment = try await store.payment(id: refund.paymentID) else { continue }
            let adapter = try ledger.adapters.refunding(for: payment)
            switch try? await adapter.refundState(refund, of: payment) {
            case .notFound?:
                if try await refunds.send(refund, of: payment).status != .pending { settled += 1 }
            case let state?:
                if try await refunds.finish(refund, state) != nil { settled += 1 }
            case nil:
                continue  // the provider did not answer: next run
            }
        }
        // Accepted but not yet confirmed: a failure reported since (a lost notification, or
        // Alipay's query without refund_status) takes the refund back off the order.
        for refund in try await store.unconfirmedRefunds(acceptedBefore: cutoff, limit: limit) {
            guard !Task.isCancelled else { break }
            guard let payment = try await store.payment(id: refund.paymentID), let adapter = try? ledger.adapters.refunding(for: payment),
                let state = try? await adapter.refundState(refund, of: payment)
            else { continue }
            if try await refunds.finish(refund, state)?.status == .failed { settled += 1 }
        }
        if configuration.refundDuplicatesAutomatically {
            for payment in try await store.unrefundedDuplicates(limit: limit) {
                guard !Task.isCancelled else { break }
                guard (try? ledger.adapters.refunding(for: payment)) != nil else { continue }
                // One number per payment: instances racing here reserve it once.
                let reservation = try await store.reserveRefund(
                    NewRefund(
                        orderID: payment.orderID, paymentID: payment.id, outRefundNo: "RD" + String(payment.id.suffix(30)),
                        reason: "paid twice: refunded automatically", requestedBy: "automatic"), now: ledger.clock.now())
                if try await refunds.send(reservation.refund, of: reservation.payment).status == .succeeded { settled += 1 }
            }
        }
        return settled
    }
}
