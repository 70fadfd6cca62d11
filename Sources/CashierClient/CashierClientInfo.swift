/// The app-side SDK's identity.
///
/// `CashierClient` is reserved for the app: it builds from Foundation alone, so an iOS app that
/// depends on it compiles no C code.
public enum CashierClientInfo {
    /// The SDK version, kept equal to the server's.
    public static let version = "0.1.0"
}
