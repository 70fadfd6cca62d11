/// Alipay's open API, server side: RSA2 (SHA256withRSA) signing of requests and order strings,
/// verification of async notifications, gateway responses and the app's sync results.
///
/// The merchant's private key never leaves the server: the app receives a signed order string.
public enum Alipay {}
