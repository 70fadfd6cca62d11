/// The version of the Cashier package.
public enum CashierVersion {
    /// Semantic version of this release.
    public static let current = "0.1.0"
}
