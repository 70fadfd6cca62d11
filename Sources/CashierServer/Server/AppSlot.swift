import Synchronization

/// The ``MerchantApp`` new requests go to: read for every request, replaced whole by a reload.
/// A request takes the app once, when it arrives, and is answered by that app to the end.
final class AppSlot: Sendable {
    private let current: Mutex<MerchantApp>

    init(_ app: MerchantApp) {
        current = Mutex(app)
    }

    /// The app of the moment.
    var app: MerchantApp { current.withLock { $0 } }

    /// Makes `app` the one new requests go to.
    func replace(with app: MerchantApp) {
        current.withLock { $0 = app }
    }
}
