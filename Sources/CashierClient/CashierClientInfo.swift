/// The app-side SDK's identity.
///
/// `CashierClient` is reserved for the app: it builds from Foundation alone, so an iOS app that
/// depends on it compiles no C code. The client itself (orders, payment parameters, wallet
/// results confirmed by the server) is not written yet; this target holds only its version.
public enum CashierClientInfo {
    /// The SDK version, kept equal to the server's.
    public static let version = "0.1.0"
}
