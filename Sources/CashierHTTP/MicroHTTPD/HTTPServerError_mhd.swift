internal import CMicroHTTPDShims
import Foundation

/// An error starting the server.
public struct HTTPServerError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    /// The daemon did not start on `host` and `port`: says why, from what binding that address
    /// gives now (the port in use, an address that is not this machine's, a port that needs
    /// privileges), since libmicrohttpd itself says only that it failed.
    static func cannotListen(host: String, port: UInt16) -> HTTPServerError {
        let place = "cannot listen on \(host):\(port)"
        let error = host.withCString { cashier_listen_probe($0, port) }
        let reason =
            switch error {
            case -1: "'\(host)' is not an IPv4 or IPv6 address (e.g. 127.0.0.1 or ::1)"
            case EADDRINUSE: "the port is in use by another process (choose another port, or stop that process)"
            case EADDRNOTAVAIL: "\(host) is not an address of this machine"
            case EACCES: "ports below 1024 need privileges (use a port from 1024 up)"
            case 0: "libmicrohttpd could not start (the address is free now: too many open files or threads?)"
            default: String(cString: strerror(error))
            }
        return HTTPServerError(message: "\(place): \(reason)")
    }
}
