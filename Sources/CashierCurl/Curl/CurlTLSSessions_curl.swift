internal import CCurl
internal import CCurlShims

/// The TLS sessions every ``CurlTransport`` handle shares, whichever of the process's loops runs
/// it. libcurl 7.88 keeps a session in the easy handle whose handshake made it, so a connection
/// opened on another handle — a second transport, a handle made for a burst of calls, one that
/// replaced a handle let go — began with a full handshake with the provider even when the
/// process had just made one with the same host. In the share, a new connection resumes the
/// session (TLS 1.3 tickets or TLS 1.2 session ids), a round trip and the certificate checks
/// shorter. libcurl resumes a session only for the same host, port and TLS settings, the client
/// certificate included, so one merchant's session is never offered for another's.
enum CurlTLSSessions {
    /// Made once, for the life of the process (handles hold it until their cleanup). Any thread
    /// may hand it to a handle: libcurl takes the share's own mutexes around everything it
    /// reads or writes in it.
    nonisolated(unsafe) static let share: UnsafeMutableRawPointer = {
        guard let share = cashier_curl_share_tls_sessions() else {
            fatalError("libcurl could not make a share for TLS sessions (out of memory)")
        }
        return share
    }()
}
