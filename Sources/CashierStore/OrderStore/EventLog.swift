public import Cashier
public import Foundation

/// Each order's append-only log: what happened to it and who said so. The audit trail, never the
/// source of an order's state. Part of ``OrderStore``.
public protocol EventLog: Sendable {
    /// Appends to an order's log without changing it (a refused notification, a refund result).
    /// A report from outside (a record with a body hash) is not logged once the order's log holds
    /// as many of those as the store keeps (``ReportLineLimit``).
    func append(_ record: EventRecord, to orderID: String, now: Date) async throws
    /// Lines of reports from outside that changed nothing and were not logged, their order's log
    /// being full (``ReportLineLimit``), since the store was opened.
    var unloggedReportLines: Int { get }
    /// Appends `record` (if any) to the order's log and queues webhook `type` about `dispute` with
    /// event id `eventID` — once per id, however often it is asked, at however many instances (a
    /// copy only adds its log line, within the order's ``ReportLineLimit`` when it has a body
    /// hash). - Returns: whether this call queued it.
    @discardableResult
    func announce(_ type: String, dispute: DisputeJSON, eventID: String, record: EventRecord?, to orderID: String, now: Date)
        async throws -> Bool
    func events(orderID: String) async throws -> [OrderEvent]
    /// Every transition into one of `statuses` logged in `[from, until)`, oldest first.
    func transitions(into statuses: Set<PaymentStatus>, from: Date, until: Date) async throws -> [OrderEvent]
    /// The newest events of these kinds across all orders, newest first (the dashboard's live view).
    func recentEvents(kinds: Set<EventKind>, limit: Int) async throws -> [OrderEvent]
}

extension EventLog {
    /// A store that logs every line leaves nothing out.
    public var unloggedReportLines: Int { 0 }
}
