import Cashier
import CashierStore
import Foundation

/// The merchant's books and every change to them, without HTTP: orders, payments and their
/// providers, refunds, captures, disputes, closing, the jobs' work. The API's controllers, the
/// dashboard, the hosted checkout, the notify endpoints and the jobs all call the services here,
/// so a check lives in one place whoever asks (a dashboard form goes through the same checks as
/// the API call it stands for). Nothing in `Ledger/` imports `CashierHTTP`.
///
/// A value holding what every service needs; each service is a small struct over it, made when
/// asked (``refunds``, ``payments``…), so the services may call one another freely.
struct Ledger: Sendable {
    let configuration: MerchantConfiguration
    let store: any OrderStore
    let clock: any WallClock
    let metrics: ServerMetrics
    /// One per configured provider and API generation.
    let adapters: PaymentAdapters
    /// The provider questions under way about payments in doubt, shared by the requests that need them.
    let queries: InFlightQueries
    /// Records what leaves the server and the secrets it holds, when the secrets check runs.
    let audit: SecretsAudit?
    /// Where this server listens (notify URLs when no public base URL is configured).
    let listening: ListeningPort
    /// Told of every order created (`cashier-sandbox serve` prints its checkout link).
    let orderCreated: (@Sendable (OrderJSON) -> Void)?

    var orders: OrderService { OrderService(ledger: self) }
    var payments: PaymentService { PaymentService(ledger: self) }
    var counter: CounterService { CounterService(ledger: self) }
    var refunds: RefundService { RefundService(ledger: self) }
    var captures: CaptureService { CaptureService(ledger: self) }
    var disputes: Disputes { Disputes(ledger: self) }
    var complaints: ComplaintService { ComplaintService(ledger: self) }
    var transfers: TransferService { TransferService(ledger: self) }
    var splits: SplitService { SplitService(ledger: self) }
    var recurring: RecurringService { RecurringService(ledger: self) }
    var lapses: Lapses { Lapses(ledger: self) }
    var closing: CloseService { CloseService(ledger: self) }
    var applePay: ApplePayAuthorizer { ApplePayAuthorizer(ledger: self) }
    var sheets: ApplePaySheetService { ApplePaySheetService(ledger: self) }
    var webhooks: WebhookService { WebhookService(ledger: self) }
    var jobs: LedgerJobs { LedgerJobs(ledger: self) }
    var events: EventApplier { EventApplier(ledger: self) }

    /// Where payers and providers reach this server: the configured public URL, else the address it listens on.
    var publicBase: String { Self.publicBase(configuration, listening) }

    static func publicBase(_ configuration: MerchantConfiguration, _ listening: ListeningPort) -> String {
        configuration.publicBaseURL ?? "http://127.0.0.1:\(listening.port.load(ordering: .acquiring))"
    }

    /// An event-log line's detail: `fields` as a JSON object.
    static func detail(_ fields: [String: String]) -> String {
        JSONText.object(fields)
    }
}
