/// Where orders, their payment attempts and their refunds live. Every change that moves money
/// is one transaction that locks the order first, checks and changes the records, derives the
/// order's status from them (`PaymentStatus.derived(settled:closed:attempts:everStarted:)`, applied only
/// when `PaymentStateMachine` allows it), appends to the order's event log and, when the
/// merchant hears about it, to the webhook outbox — so a crash leaves all of it or none, and
/// concurrent requests (on any number of instances sharing the database) move money once.
/// SQLite and PostgreSQL implement it with the same statements.
///
/// It is the sum of one protocol per concern, so a part of the server that needs one concern
/// can ask for that part alone (`any IdempotencyKeys`, `any WebhookOutbox`) and a test's fake
/// implements only what it is used for:
///
/// - ``OrderRecords``: orders created, read, listed, closed and repriced.
/// - ``PaymentLedger``: payment attempts begun and their outcomes recorded.
/// - ``RefundLedger``: refunds reserved and finished.
/// - ``EventLog``: each order's log, and disputes announced.
/// - ``IdempotencyKeys``: `Idempotency-Key`s taken, renewed, completed and released.
/// - ``WebhookOutbox``: webhook messages claimed, delivered, retried and resent.
/// - ``Reports``: the dashboard's overview and the exports' lists.
/// - ``JobLeases``: which instance runs a background job.
/// - ``AccessStore``: dashboard sessions, sign-in failures and API keys.
/// - ``ComplaintRecords``: payers' complaints, by deadline.
/// - ``TransferRecords``: transfers out, one per `out_bill_no`.
/// - ``SplitRecords``: profit sharing — receivers, splits and their returns.
/// - ``RecurringRecords``: agreements, subscriptions and one invoice per subscription and period.
/// - ``StoreLifecycle``: migrating and closing.
public typealias OrderStore = OrderRecords & PaymentLedger & RefundLedger & EventLog & IdempotencyKeys & WebhookOutbox & Reports
    & JobLeases & AccessStore & StoreLifecycle & ComplaintRecords & TransferRecords
    & SplitRecords & RecurringRecords
